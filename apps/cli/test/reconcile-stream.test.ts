import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestHome, runSds, startSds, type TestHome } from "./support/run-sds.ts";

/*
 * `sds outcomes reconcile` reads its file as a stream: a first reading checks every line
 * (keeping only the first problems and a count) and digests the idempotency key's content, a
 * second sends it batch by batch; `-o ndjson` and `-o csv` print each batch's results as they
 * come. A stand-in for sds-sync answers every line as an unknown token, and can hold a batch.
 */

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

const file = (name: string, text: string) => {
  const path = join(home.path, name);
  writeFileSync(path, text);
  return path;
};

interface Received {
  readonly key: string | undefined;
  readonly tokens: readonly string[];
}

/** Each request's key and tokens; `hold` may delay a batch's answer (`index` 0-based). */
let received: Received[];
let hold: (index: number) => Promise<void>;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const { outcomes } = JSON.parse(body) as { outcomes: { token: string; outcome: string }[] };
      const index = received.length;
      received.push({
        key: request.headers["idempotency-key"] as string | undefined,
        tokens: outcomes.map((line) => line.token),
      });
      const results = outcomes.map((line) => ({
        ...line,
        status: "unknown-token",
        previousOutcome: null,
        sequence: null,
      }));
      hold(index).then(
        () => {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify({ dryRun: false, changed: 0, unchanged: 0, unknown: results.length, results }));
        },
        // The CLI ended without showing what the hold waits for: the test fails on its result.
        () => response.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
});
beforeEach(() => {
  received = [];
  hold = () => Promise.resolve();
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const env = () => ({ SDS_SYNC_URL: url, SYNC_API_TOKEN: "sync-TOKEN-canary-7c1a9e" });

describe("sds outcomes reconcile of a file with invalid lines", () => {
  it("lists the first 50 problems as FILE:LINE, counts the rest, and sends nothing", async () => {
    const lines = Array.from({ length: 60 }, (_, index) => `r-${index},approved`);
    const path = file("rejected.csv", `token,outcome\n${lines.join("\n")}\nr-ok,complete\n`);
    const result = await runSds(["outcomes", "reconcile", path], home, { env: env() });
    expect(result.code).toBe(2);
    const listed = result.stderr.split("\n").filter((line) => line.startsWith(`${path}:`));
    expect(listed).toHaveLength(50);
    expect(listed[0]).toBe(`${path}:2: the outcome "approved" is not one of complete, terminate, overquota, security`);
    expect(listed.at(-1)?.startsWith(`${path}:51: `)).toBe(true);
    expect(result.stderr).toContain("… and 10 more\n");
    expect(result.stderr).toContain(`error: ${path} has 60 invalid lines (listed above); nothing was sent.`);
    expect(received).toEqual([]);
  });

  it("names standard input as stdin, with the line", async () => {
    const result = await runSds(["outcomes", "reconcile", "-"], home, {
      env: env(),
      input: 'token,outcome\ns-1,complete\n"s-2,terminate\n',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^stdin:3: /m);
    expect(result.stderr).toContain("error: standard input has 1 invalid line (listed above); nothing was sent.");
    expect(received).toEqual([]);
  });
});

describe("sds outcomes reconcile read as a stream", () => {
  it("keeps the idempotency key an earlier sds derived for the same file from the whole of it", async () => {
    const path = file(
      "keyed.csv",
      'Reason,TOKEN,outcome\n"rejected, ""speeder""",k-1,complete\n,k-2,terminate\nduplicate,k-3,security\n',
    );
    const result = await runSds(["outcomes", "reconcile", path, "--batch", "2", "-o", "ndjson"], home, { env: env() });
    expect(result.code, result.stderr).toBe(0);
    // The key the whole-file reading (sds before the streaming read) sent for this file.
    const fileKey = "da53db6956cd9a547e581631da0dacdd2bdd7aa19cf3603cc70a39de71a15095";
    expect(received.map((request) => request.key)).toEqual([
      `sds-reconcile:${fileKey}:1`,
      `sds-reconcile:${fileKey}:2`,
    ]);
    expect(result.stderr).toContain(`idempotency key ${fileKey.slice(0, 12)} derived from the file's content`);
  });

  it("reads the file from standard input, twice over (checked, then sent)", async () => {
    const result = await runSds(["outcomes", "reconcile", "-", "--batch", "2", "-o", "ndjson"], home, {
      env: env(),
      input: "token,outcome\ns-1,complete\ns-2,terminate\ns-3,security\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(received.map((request) => request.tokens)).toEqual([["s-1", "s-2"], ["s-3"]]);
    expect(result.stdout.trim().split("\n")).toHaveLength(3);
  });

  it("prints batch 1's results with -o ndjson while batch 2 is still unanswered", async () => {
    const path = file(
      "long.csv",
      `token,outcome\n${["n-1", "n-2", "n-3", "n-4"].map((token) => `${token},terminate`).join("\n")}\n`,
    );
    const started = startSds(["outcomes", "reconcile", path, "--batch", "2", "-o", "ndjson"], home, {
      env: env(),
      timeoutMs: 20_000,
    });
    // Batch 2 is answered only once stdout shows batch 1's last line: a CLI that prints at the end never gets it.
    hold = async (index) => {
      if (index !== 1) return;
      await started.waitForOutput('"token":"n-2"');
    };
    const result = await started.result;
    expect(result.code, result.stderr).toBe(0);
    expect(received.map((request) => request.tokens)).toEqual([
      ["n-1", "n-2"],
      ["n-3", "n-4"],
    ]);
    expect(result.stdout.trim().split("\n")).toHaveLength(4);
  });

  it("prints -o csv with one header, each batch's lines after it", async () => {
    const path = file("three.csv", "token,outcome\nc-1,complete\nc-2,terminate\nc-3,security\n");
    const result = await runSds(["outcomes", "reconcile", path, "--batch", "2", "-o", "csv"], home, { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split(/\r?\n/).filter((line) => line !== "")).toEqual([
      "line,token,status,previousOutcome,outcome,reason,sequence",
      "2,c-1,unknown-token,,complete,,",
      "3,c-2,unknown-token,,terminate,,",
      "4,c-3,unknown-token,,security,,",
    ]);
    expect(received).toHaveLength(2);
  });
  it("prints -o json as one document laid out as JSON.stringify would, every result in order", async () => {
    const path = file(
      "json.csv",
      'token,outcome,reason\nj-1,complete,"rejected, ""speeder"""\nj-2,terminate,\nj-3,security,bot\n',
    );
    const result = await runSds(["outcomes", "reconcile", path, "--batch", "2", "-o", "json"], home, { env: env() });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { results: { line: number; token: string; reason: string | null }[] };
    expect(result.stdout).toBe(`${JSON.stringify(report, null, 2)}\n`);
    expect(report).toMatchObject({ lines: 3, unknown: 3, batches: [{ batch: 1 }, { batch: 2 }] });
    expect(report.results.map((row) => [row.line, row.token, row.reason])).toEqual([
      [2, "j-1", 'rejected, "speeder"'],
      [3, "j-2", null],
      [4, "j-3", "bot"],
    ]);

    const empty = await runSds(["outcomes", "reconcile", file("empty.csv", "token,outcome\n"), "-o", "json"], home, {
      env: env(),
    });
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe(`${JSON.stringify(JSON.parse(empty.stdout), null, 2)}\n`);
    expect(JSON.parse(empty.stdout)).toMatchObject({ lines: 0, batches: [], results: [] });
  });
});
