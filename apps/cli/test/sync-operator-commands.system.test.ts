import { createFakeSupplierApi, type FakeSupplierApi } from "@sds/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestHome, runBuiltSds, startBuiltSds, type RunOptions, type TestHome } from "./support/run-sds.ts";
import { startSync, type RunningSync } from "./support/sync-service.ts";

/*
 * `sds sync status`, `sds match` and `sds outcomes tail`: the built binary (`pnpm --filter
 * @sds/cli build` first) against sds-sync from source (a child process on a free port, syncing
 * from the fake over HTTP).
 */

const SURVEY = 9501;
const syncToken = "sync-TOKEN-operator-7a1c2e";
const apiKey = "operator-test-sds-key";

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
              Cpi: "2.50",
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
        account: {
          OutgoingEncryption: { Enabled: false, Algorithm: "SHA256", QueryParameter: "hash", EncryptionKey: null },
        },
      },
    ],
  });
  const server = await fake.listen({ port: 0 });
  sync = await startSync({ sdsBaseUrl: server.baseUrl, sdsApiKey: apiKey, apiToken: syncToken });
  // Ready once the first cycle is stored and the survey routable: entry links are issued from then on.
  await vi.waitFor(
    async () => {
      const response = await sync.request("/v1/entry-links", { surveyId: SURVEY, token: "warm-up", uid: "warm-up" });
      if (response.status !== 201 && response.status !== 200)
        throw new Error(`entry link: ${response.status} ${await response.text()}`);
    },
    { timeout: 60_000, interval: 50 },
  );
}, 90_000);
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

const env = { SDS_SYNC_URL: "", SYNC_API_TOKEN: syncToken };
const sds = (args: readonly string[], options: RunOptions = {}) =>
  runBuiltSds(args, home, { ...options, env: { ...env, SDS_SYNC_URL: sync.url, ...options.env } });

/** Issues an entry link for `token` (uid = token) and records the marketplace's `outcome` for it. */
async function enterAndFinish(token: string, outcome: string): Promise<void> {
  const issued = await sync.request("/v1/entry-links", { surveyId: SURVEY, token, uid: token });
  expect(issued.status, await issued.clone().text()).toBe(201);
  const recorded = await fetch(`${sync.url}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`);
  expect(recorded.status).toBe(200);
}

describe("sds sync status", () => {
  it("says health, role, last cycle and money; --json as one document", async () => {
    await enterAndFinish("st-1", "complete");
    const json = await sds(["sync", "status", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const summary = JSON.parse(json.stdout) as {
      url: string;
      ready: boolean;
      role: { leader: boolean; replicaId: string };
      lastCycle: { status: string } | null;
      money: { lifetime: { entries: number; completes: number; earnings: number } };
      currency: string;
    };
    expect(summary).toMatchObject({
      url: sync.url,
      ready: true,
      role: { leader: true },
      lastCycle: { status: "succeeded" },
    });
    expect(summary.money.lifetime.completes).toBeGreaterThanOrEqual(1);
    expect(summary.money.lifetime.earnings).toBeGreaterThanOrEqual(2.5);
    expect(summary.currency).toBe("USD");

    const table = await sds(["sync", "status", "-o", "table", "--no-color"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Health\s+ready$/m);
    expect(table.stdout).toMatch(new RegExp(`^Role\\s+leader \\(replica ${summary.role.replicaId}\\)$`, "m"));
    expect(table.stdout).toMatch(/^Last cycle\s+succeeded at /m);
    // Earnings in SYNC_CURRENCY (USD by default), with its symbol.
    expect(table.stdout).toMatch(/^lifetime\s+\d+\s+\d+\s+\d+\s+\d+\s+\$[\d,]+\.\d\d\s+[\d.]+ %\s+\$[\d,]+\.\d\d$/m);
  });

  it("answers 5, naming the URL, when nothing listens", async () => {
    const down = await sds(["sync", "status"], { env: { SDS_SYNC_URL: "http://127.0.0.1:9" } });
    expect(down.code).toBe(5);
    expect(down.stderr).toMatch(/^error: cannot reach sds-sync at http:\/\/127\.0\.0\.1:9\//);
  });
});

describe("sds match", () => {
  it("lists the surveys a respondent qualifies for, and explains one with --explain", async () => {
    const matched = await sds(["match", "--answers", "{}", "--uid", "m-1", "-o", "json"]);
    expect(matched.code, matched.stderr).toBe(0);
    const result = JSON.parse(matched.stdout) as { eligible: number; surveys: { SurveyId: number }[] };
    expect(result.surveys.map((survey) => survey.SurveyId)).toContain(SURVEY);

    await enterAndFinish("m-2", "terminate");
    const explained = await sds([
      "match",
      "--answers",
      "42=34",
      "--uid",
      "m-2",
      "--explain",
      String(SURVEY),
      "-o",
      "json",
    ]);
    expect(explained.code, explained.stderr).toBe(0);
    const withExplanation = JSON.parse(explained.stdout) as { surveys: { SurveyId: number }[]; explanation: unknown };
    expect(withExplanation.surveys.map((survey) => survey.SurveyId)).not.toContain(SURVEY);
    expect(JSON.stringify(withExplanation.explanation)).toContain("already-entered");

    const inWords = await sds(["match", "--answers", "{}", "--uid", "m-2", "--explain", String(SURVEY), "-o", "table"]);
    expect(inWords.stderr).toMatch(new RegExp(`^Survey ${SURVEY}: out\\.\\n  already-entered: .+$`, "m"));
    const table = await sds(["match", "--answers", "{}", "-o", "table", "--no-color"]);
    expect(table.stdout).toMatch(new RegExp(`^\\s*${SURVEY}\\s+2\\.50\\b`, "m"));
    expect(table.stderr).toMatch(/^\d+ shown of \d+ eligible\.$/m);
    expect((await sds(["match"])).code).toBe(2);
    expect((await sds(["match", "--answers", "age=34"])).code).toBe(2);
  });
});

describe("sds outcomes tail", () => {
  it("prints the feed after a sequence, and with --follow each new outcome as it is recorded until Ctrl-C", async () => {
    await enterAndFinish("t-1", "complete");
    const all = await sds(["outcomes", "tail", "-o", "ndjson"]);
    expect(all.code, all.stderr).toBe(0);
    const outcomes = all.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { sequence: number; token: string; outcome: string });
    const last = outcomes.at(-1);
    expect(last).toMatchObject({ token: "t-1", outcome: "complete" });
    const sequences = outcomes.map((outcome) => outcome.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));

    const after = await sds(["outcomes", "tail", "--after", String((last?.sequence ?? 1) - 1), "-o", "table"]);
    expect(after.stdout).toMatch(
      new RegExp(`^#${last?.sequence}  \\S+  complete  token t-1  survey ${SURVEY}  s2s\\n$`),
    );

    const following = startBuiltSds(
      ["outcomes", "tail", "-f", "--after", String(last?.sequence ?? 0), "-o", "ndjson"],
      home,
      {
        env: { ...env, SDS_SYNC_URL: sync.url },
        timeoutMs: 60_000,
      },
    );
    await enterAndFinish("t-2", "overquota");
    await following.waitForOutput('"token":"t-2"');
    following.child.kill("SIGINT");
    const result = await following.result;
    expect(result.code).toBe(130);
    expect(
      result.stdout
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as { token: string }).token),
    ).toEqual(["t-2"]);
  });
});
