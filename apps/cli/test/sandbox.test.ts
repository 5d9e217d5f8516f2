import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestHome, runSds, startSds, type TestHome } from "./support/run-sds.ts";

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

interface SandboxSummary {
  readonly baseUrl: string;
  readonly controlUrl: string;
  readonly keys: readonly { readonly supplierId: number; readonly apiKey: string }[];
}

describe("sds sandbox", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`prints its base URL and keys, serves seeded surveys, and closes cleanly on ${signal}`, async () => {
      const sandbox = startSds(["sandbox", "--port", "0", "--seed", "5", "--surveys", "7", "--api-key", "sandbox-key"], home);
      await sandbox.waitForOutput("}\n");
      const summary = JSON.parse(sandbox.stdout()) as SandboxSummary;
      expect(summary.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      expect(summary.keys).toEqual([{ supplierId: expect.any(Number) as number, apiKey: "sandbox-key" }]);

      const surveys = await runSds(["surveys", "list"], home, { env: { SDS_BASE_URL: summary.baseUrl, SDS_API_KEY: "sandbox-key" } });
      expect(surveys.code).toBe(0);
      expect(JSON.parse(surveys.stdout)).toHaveLength(7);

      sandbox.child.kill(signal);
      const result = await sandbox.result;
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("Stopping the sandbox…\n");
      const after = await runSds(["account", "show", "--timeout", "1"], home, { env: { SDS_BASE_URL: summary.baseUrl, SDS_API_KEY: "sandbox-key" } });
      expect(after.code).toBe(5);
    });
  }

  it("gives the same surveys for the same seed", async () => {
    const lists: string[] = [];
    for (let run = 0; run < 2; run++) {
      const sandbox = startSds(["sandbox", "--seed", "9", "--surveys", "3", "--api-key", "k"], home);
      await sandbox.waitForOutput("}\n");
      const { baseUrl } = JSON.parse(sandbox.stdout()) as SandboxSummary;
      const list = await runSds(["surveys", "list", "--fields", "SurveyId,Name,Cpi"], home, { env: { SDS_BASE_URL: baseUrl, SDS_API_KEY: "k" } });
      lists.push(list.stdout);
      sandbox.child.kill("SIGINT");
      await sandbox.result;
    }
    expect(lists[0]).toBe(lists[1]);
    expect(JSON.parse(lists[0] ?? "[]")).toHaveLength(3);
  });

  it("listens on the port asked for and rejects bad numbers", async () => {
    const bad = await runSds(["sandbox", "--port", "70000"], home);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("error: --port must be at most 65535, got 70000\n");
    expect((await runSds(["sandbox", "--surveys", "many"], home)).code).toBe(2);
    const host = await runSds(["sandbox", "--host", "256.1.1.1"], home);
    expect(host.code).toBe(2);
    expect(host.stderr).toMatch(/^error: cannot listen on 256\.1\.1\.1: no such local address\./);
  });

  it("exits 1 with one line when the port is taken", async () => {
    const first = startSds(["sandbox", "--api-key", "k"], home);
    await first.waitForOutput("}\n");
    const { baseUrl } = JSON.parse(first.stdout()) as SandboxSummary;
    const port = new URL(baseUrl).port;
    const second = await runSds(["sandbox", "--port", port], home);
    first.child.kill("SIGINT");
    await first.result;
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(`error: cannot listen on 127.0.0.1:${port}: the port is in use. Pick another --port, or --port 0 for a free one.\n`);
    expect(second.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
