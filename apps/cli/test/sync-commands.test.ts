import { createServer, type Server } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createFakeSupplierApi, type FakeSupplierApi } from "@sds/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestHome, runSds, type RunOptions, type TestHome } from "./support/run-sds.ts";
import { startSync, type RunningSync } from "./support/sync-service.ts";

/*
 * `sds outcomes reconcile` and `sds respondents import`, the built binary against the built
 * sds-sync (a child process on a free port, syncing from the fake over HTTP).
 */

const SURVEY = 9401;
const syncToken = "sync-TOKEN-canary-5d2e8f";
const apiKey = "sync-test-sds-key";

let fake: FakeSupplierApi;
let sync: RunningSync;
let home: TestHome;

beforeAll(async () => {
  fake = createFakeSupplierApi({
    suppliers: [
      {
        supplierId: 1001,
        apiKey,
        surveys: [
          {
            survey: {
              SurveyId: SURVEY,
              Cpi: "4.00",
              LanguageId: 1,
              DesktopAllowed: true,
              MobileAllowed: true,
              TabletAllowed: true,
              Has_Quotas: false,
              Has_Qualifications: false,
              SurveyUrl: `https://survey.example.com/s/${SURVEY}?rid=[%RID%]`,
            },
            qualifications: [],
          },
        ],
        // Unsigned S2S calls, so a test can complete an entry with a plain GET.
        account: {
          OutgoingEncryption: { Enabled: false, Algorithm: "SHA256", QueryParameter: "hash", EncryptionKey: null },
        },
      },
    ],
  });
  const server = await fake.listen({ port: 0 });
  sync = await startSync({ sdsBaseUrl: server.baseUrl, sdsApiKey: apiKey, apiToken: syncToken });
}, 60_000);
afterAll(async () => {
  await sync.close();
  await fake.close();
});
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

const env = (extra: Record<string, string> = {}) => ({ SDS_SYNC_URL: sync.url, SYNC_API_TOKEN: syncToken, ...extra });
const sds = (args: readonly string[], options: RunOptions = {}) =>
  runSds(args, home, { ...options, env: { ...env(), ...options.env } });
const file = (name: string, text: string) => {
  const path = join(home.path, name);
  writeFileSync(path, text);
  return path;
};

/** Issues an entry link for each token (uid = token) and, when given, the marketplace's outcome for it. */
async function issue(tokens: readonly string[], outcome?: string): Promise<void> {
  for (const token of tokens) {
    // The survey reaches sds-sync's matcher after its first cycle (404 until then), and is routed once the
    // study types are read (409 survey_unroutable, with Retry-After, until then).
    const deadline = Date.now() + 20_000;
    for (;;) {
      const response = await sync.request("/v1/entry-links", { surveyId: SURVEY, token, uid: token });
      if (response.status === 201) break;
      const text = await response.text();
      const waiting = response.status === 404 || (response.status === 409 && text.includes('"survey_unroutable"'));
      if (!waiting || Date.now() > deadline)
        throw new Error(`entry link for ${token}: ${response.status} ${text}\n${sync.output.join("\n")}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (outcome !== undefined)
      expect((await fetch(`${sync.url}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`)).status).toBe(
        200,
      );
  }
}

/** A port nothing listens on (it just stopped listening). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address !== null ? address.port : 0;
}

interface FeedRow {
  token: string;
  outcome: string;
  previousOutcome: string | null;
  source: string;
  reason: string | null;
}
const feed = async (token: string) =>
  ((await (await sync.request("/v1/outcomes?after=0&limit=1000")).json()) as { outcomes: FeedRow[] }).outcomes.filter(
    (row) => row.token === token,
  );

describe("sds outcomes reconcile", () => {
  it("lists what a dry run would change and records nothing; then records it, the reason in sds-sync's outcome feed", async () => {
    await issue(["d-1", "d-2"], "complete");
    await issue(["d-3"]);
    const report = file(
      "report.csv",
      'token,outcome,reason\r\nd-1,terminate,"speeder, rejected in review"\r\nd-2,complete,\r\nghost-token,terminate,\r\nd-3,Complete,late approval\r\n',
    );

    const preview = await sds(["outcomes", "reconcile", report, "--dry-run", "-o", "table"]);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toBe(
      [
        "TOKEN  CHANGE                REASON",
        "d-1    complete → terminate  speeder, rejected in review",
        "d-3    pending → complete    late approval",
        "Dry run of 4 lines: 2 would change, 1 unchanged, 1 unknown token; nothing was recorded.",
        "",
      ].join("\n"),
    );
    expect(preview.stderr).toBe(
      'warning: 1 token matches no entry issued by sds-sync (nothing recorded for it): line 4 "ghost-token"\n',
    );
    expect(await feed("d-1")).toHaveLength(1);
    expect(await feed("d-3")).toHaveLength(0);

    const recorded = await sds(["outcomes", "reconcile", report, "-o", "json"]);
    expect(recorded.code, recorded.stderr).toBe(0);
    const answer = JSON.parse(recorded.stdout) as {
      dryRun: boolean;
      lines: number;
      changed: number;
      unchanged: number;
      unknown: number;
      results: Record<string, unknown>[];
    };
    expect(answer).toMatchObject({ dryRun: false, lines: 4, changed: 2, unchanged: 1, unknown: 1 });
    expect(answer.results.map(({ sequence: _sequence, ...line }) => line)).toEqual([
      {
        line: 2,
        token: "d-1",
        status: "changed",
        previousOutcome: "complete",
        outcome: "terminate",
        reason: "speeder, rejected in review",
      },
      { line: 3, token: "d-2", status: "unchanged", previousOutcome: null, outcome: "complete", reason: null },
      {
        line: 4,
        token: "ghost-token",
        status: "unknown-token",
        previousOutcome: null,
        outcome: "terminate",
        reason: null,
      },
      { line: 5, token: "d-3", status: "changed", previousOutcome: null, outcome: "complete", reason: "late approval" },
    ]);
    expect(typeof answer.results[0]?.sequence).toBe("number");
    expect((await feed("d-1")).at(-1)).toMatchObject({
      outcome: "terminate",
      previousOutcome: "complete",
      source: "reconcile",
      reason: "speeder, rejected in review",
    });

    const rowsBefore = { d1: (await feed("d-1")).length, d3: (await feed("d-3")).length };
    expect(recorded.stderr).toMatch(
      /^idempotency key [0-9a-f]{12} derived from the file's content; --again sends a fresh one\n/,
    );
    const key = /idempotency key ([0-9a-f]{12})/.exec(recorded.stderr)?.[1];

    // The same file again records nothing: sds-sync answers the first run's answer for the same key.
    const again = await sds(["outcomes", "reconcile", report, "-o", "table"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      [
        "TOKEN  CHANGE                REASON",
        "d-1    complete → terminate  speeder, rejected in review",
        "d-3    pending → complete    late approval",
        "Reconciled 4 lines: 2 changed, 1 unchanged, 1 unknown token.",
        "",
      ].join("\n"),
    );
    expect(again.stderr).toContain(`idempotency key ${key} derived from the file's content`);
    expect(again.stderr).toContain(
      "batch 1 (lines 2–5) had been applied by an earlier run with the same idempotency key: nothing was recorded again",
    );
    expect({ d1: (await feed("d-1")).length, d3: (await feed("d-3")).length }).toEqual(rowsBefore);

    // --again sends a fresh key: the lines are sent anew, and now change nothing.
    const fresh = await sds(["outcomes", "reconcile", report, "--again", "-o", "table"]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toBe("Reconciled 4 lines: 0 changed, 3 unchanged, 1 unknown token.\n");
    expect(fresh.stderr).toMatch(/^idempotency key [0-9a-f]{12} is fresh \(--again\)/);
    expect(fresh.stderr).not.toContain(`idempotency key ${key}`);
  });

  it("applies a report that rejects then reinstates a complete once, however often it is run, and refuses control characters in a reason", async () => {
    await issue(["q-1", "q-2"], "complete");
    const report = file(
      "qc.csv",
      "token,outcome,reason\nq-1,terminate,qc\nq-2,terminate,qc\nq-1,complete,appeal\nq-2,complete,appeal\n",
    );
    const runs = await Promise.all(
      [1, 2, 3].map(() => sds(["outcomes", "reconcile", report, "--batch", "2", "-o", "json"])),
    );
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ changed: 4, batches: [{ batch: 1 }, { batch: 2 }] });
    }
    for (const token of ["q-1", "q-2"])
      expect((await feed(token)).map((row) => row.reason)).toEqual([null, "qc", "appeal"]);

    const escapes = file(
      "esc.csv",
      'token,outcome,reason\nq-1,terminate,"\u001b[2J\u001b]8;;https://evil.example\u0007x"\n',
    );
    const refused = await sds(["outcomes", "reconcile", escapes]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${escapes}:2: the reason must not hold control characters`);
  });

  it("sends a long file in batches, in order: a later line of a token sees the earlier one's effect across batches", async () => {
    await issue(["b-1"], "complete");
    const lines = Array.from({ length: 1200 }, (_, index) => `unknown-${index},terminate`);
    lines[499] = "b-1,terminate";
    lines[500] = "b-1,complete";
    const report = file("long.csv", `token,outcome\n${lines.join("\n")}\n`);
    const result = await sds(["outcomes", "reconcile", report, "--batch", "500", "-o", "ndjson"], {
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { line: number; status: string; previousOutcome: string | null });
    expect(rows).toHaveLength(1200);
    expect(rows.filter((row) => row.status === "changed").map((row) => [row.line, row.previousOutcome])).toEqual([
      [501, "complete"],
      [502, "terminate"],
    ]);
    expect(result.stderr).toMatch(
      /^idempotency key [0-9a-f]{12} derived from the file's content; --again sends a fresh one\nwarning: 1198 tokens match no entry issued by sds-sync \(nothing recorded for them\): line 2 "unknown-0", .*, and 1188 more\n$/,
    );
    for (const batch of ["0", "1001", "x"]) {
      const refused = await sds(["outcomes", "reconcile", report, "--batch", batch]);
      expect(refused.code, batch).toBe(2);
      expect(refused.stderr, batch).toMatch(/^error: --batch must be/);
    }
  });

  // The messages about tokens, ids and times are @sds/sync-client's, the owner of sds-sync's rules.
  it("checks every line before sending anything: problems listed as FILE:LINE, exit 2", async () => {
    await issue(["v-1"], "complete");
    const report = file(
      "bad.csv",
      `token,outcome,reason\nv-1,terminate,fine\nv-1,compleet,\n,terminate,\nv-1,terminate,${"x".repeat(501)}\nv-1,terminate\n`,
    );
    const result = await sds(["outcomes", "reconcile", report]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      [
        `${report}:3: the outcome "compleet" is not one of complete, terminate, overquota, security`,
        `${report}:4: the token must not be empty`,
        `${report}:5: the reason must be at most 500 characters, got 501`,
        `${report}:6: has 2 fields, the header 3`,
        `error: ${report} has 4 invalid lines (listed above); nothing was sent. Fix them and run the command again.`,
        "",
      ].join("\n"),
    );
    // Line 2 was valid, and still not sent.
    expect(await feed("v-1")).toHaveLength(1);

    for (const [text, message] of [
      ["tok,outcome\nv-1,terminate\n", ':1: unknown column "tok"; the header is token,outcome[,reason]'],
      ["outcome,reason\nterminate,x\n", ":1: the header lacks token; the first line must be token,outcome[,reason]"],
      ['token,outcome\n"v-1,terminate\n', ":2: a quoted field is never closed (a quote is missing)"],
      ["", ":1: the file is empty; its first line must be the header token,outcome[,reason]"],
    ] as const) {
      const refused = await sds(["outcomes", "reconcile", file("bad-header.csv", text)]);
      expect(refused.code, text).toBe(2);
      expect(refused.stderr, text).toContain(message);
    }
    const missing = await sds(["outcomes", "reconcile", join(home.path, "absent.csv")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: cannot read .*absent\.csv: ENOENT/);
  });

  it("reads the file from standard input with -, and the token from SYNC_API_TOKEN or --sync-token-stdin, never from a flag value", async () => {
    await issue(["s-1"], "complete");
    const fromStdin = await sds(["outcomes", "reconcile", "-", "--dry-run", "-o", "json"], {
      input: "token,outcome\ns-1,security\n",
    });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({
      dryRun: true,
      changed: 1,
      results: [{ token: "s-1", previousOutcome: "complete", outcome: "security", sequence: null }],
    });

    const report = file("s.csv", "token,outcome\ns-1,security\n");
    const tokenOnStdin = await sds(["outcomes", "reconcile", report, "--dry-run", "--sync-token-stdin", "-o", "json"], {
      env: { SYNC_API_TOKEN: "" },
      input: `${syncToken}\n`,
    });
    expect(tokenOnStdin.code, tokenOnStdin.stderr).toBe(0);

    const noToken = await sds(["outcomes", "reconcile", report, "--dry-run"], { env: { SYNC_API_TOKEN: "" } });
    expect(noToken.code).toBe(3);
    expect(noToken.stderr).toBe(
      "error: sds-sync refused POST /v1/outcomes/reconcile (401): this route needs Authorization: Bearer <SYNC_API_TOKEN>. sds-sync wants a token: set SYNC_API_TOKEN or pipe it to --sync-token-stdin.\n",
    );
    const wrongToken = await sds(["outcomes", "reconcile", report, "--dry-run", "--debug"], {
      env: { SYNC_API_TOKEN: "wrong-TOKEN-0123456789" },
    });
    expect(wrongToken.code).toBe(3);
    expect(wrongToken.stderr).toContain("Check the token (SYNC_API_TOKEN or --sync-token-stdin)");
    expect(wrongToken.stderr).toContain("authorization: Bearer [REDACTED]");
    expect(wrongToken.stderr).not.toContain("wrong-TOKEN-0123456789");

    const asFlag = await sds(["outcomes", "reconcile", report, "--sync-token", syncToken]);
    expect(asFlag.code).toBe(2);
    expect(asFlag.stderr).toMatch(
      /^error: `sds outcomes reconcile` takes no --sync-token: a token on the command line ends up in shell history and in `ps`\. Pipe it to --sync-token-stdin, or set SYNC_API_TOKEN\.\n$/,
    );
    expect(asFlag.stderr).not.toContain(syncToken);
    const bothOnStdin = await sds(["outcomes", "reconcile", "-", "--sync-token-stdin"], { input: syncToken });
    expect(bothOnStdin.code).toBe(2);
    expect(bothOnStdin.stderr).toContain("both read standard input");
    expect(await feed("s-1")).toHaveLength(1);
  });

  it("says how to reach sds-sync: no URL is exit 2, nothing listening exit 5, a URL that is not sds-sync's base exit 4", async () => {
    const report = file("r.csv", "token,outcome\nx,terminate\n");
    const noUrl = await sds(["outcomes", "reconcile", report], { env: { SDS_SYNC_URL: "" } });
    expect(noUrl).toMatchObject({
      code: 2,
      stdout: "",
      stderr:
        "error: no sds-sync URL configured. Pass --sync-url or set SDS_SYNC_URL, such as http://127.0.0.1:8787.\n",
    });
    const badUrl = await sds(["outcomes", "reconcile", report, "--sync-url", "ftp://sync.example"]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(
      /^error: --sync-url: Invalid base URL: .*Give sds-sync's base URL, such as http:\/\/127\.0\.0\.1:8787\.\n$/,
    );
    const port = await closedPort();
    const closed = await sds(["outcomes", "reconcile", report, "--sync-url", `http://127.0.0.1:${port}`]);
    expect(closed.code).toBe(5);
    expect(closed.stderr).toBe(
      `idempotency key ${/[0-9a-f]{12}/.exec(closed.stderr)?.[0]} derived from the file's content; --again sends a fresh one\nerror: cannot reach sds-sync at http://127.0.0.1:${port}/v1/outcomes/reconcile (ECONNREFUSED). Check --sync-url or SDS_SYNC_URL and that sds-sync is running.\n`,
    );
    const withV1 = await sds(["outcomes", "reconcile", report, "--sync-url", `${sync.url}/v1`]);
    expect(withV1.code).toBe(4);
    expect(withV1.stderr).toContain(`Check that ${sync.url}/v1 is sds-sync's base URL (no /v1 at the end)`);
  });
});

describe("sds outcomes reconcile against a failing sds-sync", () => {
  let server: Server;
  let url: string;
  let answers: number[];
  /** The Idempotency-Key of each request received. */
  let keys: (string | undefined)[];
  beforeAll(async () => {
    // Answers each request with the next status of `answers`: 200 (every line unknown) or an error.
    server = createServer((request, response) => {
      keys.push(request.headers["idempotency-key"] as string | undefined);
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        const status = answers.shift() ?? 500;
        const { outcomes } = JSON.parse(body) as { outcomes: { token: string; outcome: string }[] };
        const results = outcomes.map((line) => ({
          ...line,
          status: "unknown-token",
          previousOutcome: null,
          sequence: null,
        }));
        response.writeHead(status, { "content-type": "application/json" });
        response.end(
          JSON.stringify(
            status === 200
              ? { dryRun: false, changed: 0, unchanged: 0, unknown: results.length, results }
              : { error: { code: "store_unavailable", message: "the store is unavailable" } },
          ),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("exits 1 with sds-sync's message; after a batch went through, prints its results and says where it stopped", async () => {
    const report = file(
      "f.csv",
      `token,outcome\n${Array.from({ length: 5 }, (_, index) => `f-${index},terminate`).join("\n")}\n`,
    );
    answers = [503, 503, 503];
    keys = [];
    const first = await sds(["outcomes", "reconcile", report, "--sync-url", url]);
    expect(first).toMatchObject({ code: 1, stdout: "" });
    expect(first.stderr).toMatch(
      /^idempotency key [0-9a-f]{12} derived from the file's content; --again sends a fresh one\nerror: sds-sync refused POST \/v1\/outcomes\/reconcile \(503\): the store is unavailable\n$/,
    );
    // With its key a batch is safe to send again: the client retried it, with the same key.
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);

    answers = [200, 500, 500, 500];
    keys = [];
    const second = await sds(["outcomes", "reconcile", report, "--sync-url", url, "--batch", "3", "-o", "json"]);
    expect(second.code).toBe(1);
    expect(JSON.parse(second.stdout)).toMatchObject({
      lines: 3,
      unknown: 3,
      batches: [{ batch: 1, firstLine: 2, lastLine: 4, replayed: false }],
    });
    expect(second.stderr).toContain(
      "error: batch 2 of 2 (from line 5) failed: sds-sync refused POST /v1/outcomes/reconcile (500): the store is unavailable. The lines up to line 4 were sent (their results are above); the rest were not. Batch 1 was applied; batch 2 was recorded whole or not at all, and which is not known. Running the file again is safe",
    );
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^sds-reconcile:[0-9a-f]{64}:1$/);
    expect(keys.slice(1)).toEqual([2, 2, 2].map(() => keys[0]?.replace(/:1$/, ":2")));

    // A batch sds-sync refuses (a 4xx) recorded nothing: the message says so.
    answers = [200, 422];
    keys = [];
    const refused = await sds(["outcomes", "reconcile", report, "--sync-url", url, "--batch", "3"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "Batch 1 was applied; batch 2 recorded nothing (sds-sync refused it: a batch is all or nothing).",
    );
    expect(keys).toHaveLength(2);

    // A dry run that sds-sync does not confirm as one stops: it may have recorded.
    answers = [200];
    const unconfirmed = await sds(["outcomes", "reconcile", report, "--sync-url", url, "--dry-run"]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(
      /^error: sds-sync did not confirm the dry run of batch 1: it may have recorded it/,
    );
  });
});

describe("sds respondents import", () => {
  const matchIds = async (uid: string) =>
    (
      (await (await sync.request("/v1/match", { answers: {}, uid })).json()) as { surveys: { SurveyId: number }[] }
    ).surveys.map((survey) => survey.SurveyId);

  it("imports CSV history once, so routing keeps the respondent out of the survey, and says what it skipped", async () => {
    await issue(["warm-up"]);
    expect(await matchIds("imported-1")).toContain(SURVEY);
    const history = file(
      "history.csv",
      `uid,surveyId,enteredAt,outcome\nimported-1,${SURVEY},2026-01-05T10:00:00Z,complete\nimported-2,${SURVEY},2026-01-05T12:00:00+02:00,\n`,
    );
    const first = await sds(["respondents", "import", history, "-o", "table"]);
    expect(first).toMatchObject({
      code: 0,
      stdout: "Imported 2 of 2 entries; 0 already known, skipped.\n",
      stderr: "",
    });
    const again = await sds(["respondents", "import", history, "-o", "json"]);
    expect(JSON.parse(again.stdout)).toEqual({ entries: 2, imported: 0, skipped: 2 });
    expect(await matchIds("imported-1")).not.toContain(SURVEY);
    expect(await matchIds("someone-else")).toContain(SURVEY);
  });

  it("imports JSON Lines from a file or standard input, in batches", async () => {
    const lines = Array.from({ length: 25 }, (_, index) =>
      JSON.stringify({
        uid: `jl-${index}`,
        surveyId: SURVEY,
        enteredAt: "2026-02-01T08:30:00.250Z",
        ...(index % 2 === 0 ? { outcome: "terminate" } : {}),
      }),
    );
    const fromFile = await sds([
      "respondents",
      "import",
      file("history.jsonl", `${lines.join("\n")}\n`),
      "--batch",
      "10",
      "-o",
      "json",
    ]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toEqual({ entries: 25, imported: 25, skipped: 0 });
    const fromStdin = await sds(["respondents", "import", "-", "-o", "json"], {
      input: `${lines.slice(0, 3).join("\r\n")}\r\n\r\n`,
    });
    expect(JSON.parse(fromStdin.stdout)).toEqual({ entries: 3, imported: 0, skipped: 3 });
  });

  it("checks every entry before sending anything: problems listed as FILE:LINE, exit 2", async () => {
    const csv = file(
      "bad-history.csv",
      `uid,surveyId,enteredAt\nok-1,${SURVEY},2026-01-05T10:00:00Z\nbad-1,-4,2026-01-05T10:00:00Z\nbad-2,${SURVEY},2026-01-05 10:00\nbad-3,${SURVEY},2026-02-30T10:00:00Z\n`,
    );
    const result = await sds(["respondents", "import", csv]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      [
        `${csv}:3: surveyId "-4" is not a positive whole number`,
        `${csv}:4: enteredAt "2026-01-05 10:00" must be an ISO 8601 time with seconds and a zone, such as 2026-01-05T10:00:00Z or 2026-01-05T12:00:00+02:00`,
        `${csv}:5: enteredAt "2026-02-30T10:00:00Z" must be an ISO 8601 time with seconds and a zone, such as 2026-01-05T10:00:00Z or 2026-01-05T12:00:00+02:00`,
        `error: ${csv} has 3 invalid lines (listed above); nothing was sent. Fix them and run the command again.`,
        "",
      ].join("\n"),
    );
    expect(await matchIds("ok-1")).toContain(SURVEY);

    const jsonl = file(
      "bad.jsonl",
      `{"uid":"j","surveyId":${SURVEY},"enteredAt":"2026-01-05T10:00:00Z","extra":1}\nnot json\n{"uid":"","surveyId":"${SURVEY}","enteredAt":"2026-01-05T10:00:00Z","outcome":"won"}\n`,
    );
    const refused = await sds(["respondents", "import", jsonl]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `${jsonl}:1: unknown field "extra"; the fields are uid, surveyId, enteredAt, outcome`,
    );
    expect(refused.stderr).toMatch(new RegExp(`${jsonl.replaceAll(".", "\\.")}:2: is not JSON: `));
    expect(refused.stderr).toContain(
      `${jsonl}:3: uid must not be empty; surveyId "${SURVEY}" is not a positive whole number; outcome "won" is not one of complete, terminate, overquota, security (or empty)`,
    );
  });
});
