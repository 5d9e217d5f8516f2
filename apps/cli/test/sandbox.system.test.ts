import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
  readonly marketplaceUrl?: string;
  readonly marketplaceControlUrl?: string;
}

describe("sds sandbox", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`prints its base URL and keys, serves seeded surveys, and closes cleanly on ${signal}`, async () => {
      const sandbox = startSds(
        ["sandbox", "--port", "0", "--seed", "5", "--surveys", "7", "--api-key", "sandbox-key"],
        home,
      );
      await sandbox.waitForOutput("}\n");
      const summary = JSON.parse(sandbox.stdout()) as SandboxSummary;
      expect(summary.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      expect(summary.keys).toEqual([{ supplierId: expect.any(Number) as number, apiKey: "sandbox-key" }]);

      const surveys = await runSds(["surveys", "list"], home, {
        env: { SDS_BASE_URL: summary.baseUrl, SDS_API_KEY: "sandbox-key" },
      });
      expect(surveys.code).toBe(0);
      expect(JSON.parse(surveys.stdout)).toHaveLength(7);

      sandbox.child.kill(signal);
      const result = await sandbox.result;
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("Stopping the sandbox…\n");
      const after = await runSds(["account", "show", "--timeout", "1"], home, {
        env: { SDS_BASE_URL: summary.baseUrl, SDS_API_KEY: "sandbox-key" },
      });
      expect(after.code).toBe(5);
    });
  }

  it("gives the same surveys for the same seed", async () => {
    const lists: string[] = [];
    for (let run = 0; run < 2; run++) {
      const sandbox = startSds(["sandbox", "--seed", "9", "--surveys", "3", "--api-key", "k"], home);
      await sandbox.waitForOutput("}\n");
      const { baseUrl } = JSON.parse(sandbox.stdout()) as SandboxSummary;
      const list = await runSds(["surveys", "list", "--fields", "SurveyId,Name,Cpi"], home, {
        env: { SDS_BASE_URL: baseUrl, SDS_API_KEY: "k" },
      });
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
    expect(second.stderr).toBe(
      `error: cannot listen on 127.0.0.1:${port}: the port is in use. Pick another --port, or --port 0 for a free one.\n`,
    );
    expect(second.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("runs no marketplace unless asked", async () => {
    const sandbox = startSds(["sandbox", "--surveys", "1", "--api-key", "k"], home);
    await sandbox.waitForOutput("}\n");
    expect(JSON.parse(sandbox.stdout())).not.toHaveProperty("marketplaceUrl");
    sandbox.child.kill("SIGINT");
    await sandbox.result;
    const lonePort = await runSds(["sandbox", "--marketplace-port", "4011"], home);
    expect(lonePort.code).toBe(2);
    expect(lonePort.stderr).toBe("error: --marketplace-port needs --marketplace\n");
  });

  it("with --marketplace, an entry link from sds link entry leads to the marketplace, which redirects and calls the S2S URL set with sds account set-s2s", async () => {
    const received: { method: string; url: string }[] = [];
    const receiver = createServer((request, response) => {
      received.push({ method: request.method ?? "", url: request.url ?? "" });
      response.writeHead(200).end("{}");
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const sandbox = startSds(["sandbox", "--seed", "2", "--surveys", "12", "--api-key", "k", "--marketplace"], home);
    try {
      await sandbox.waitForOutput("}\n");
      const summary = JSON.parse(sandbox.stdout()) as SandboxSummary;
      expect(summary.marketplaceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(summary.marketplaceControlUrl).toBe(`${summary.marketplaceUrl ?? "?"}/__sandbox`);
      const told = await fetch(`${summary.marketplaceControlUrl ?? "?"}/respondents/r-1/answers`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ answers: { "42": ["34"] } }),
      });
      expect(await told.json()).toMatchObject({ hasError: false, uid: "r-1", answers: { "42": ["34"] } });
      const env = { SDS_BASE_URL: summary.baseUrl, SDS_API_KEY: "k" };

      const list = await runSds(["surveys", "list", "--fields", "SurveyId,SurveyUrl"], home, { env });
      const surveys = JSON.parse(list.stdout) as { SurveyId: number; SurveyUrl: string }[];
      for (const survey of surveys)
        expect(survey.SurveyUrl.startsWith(`${summary.marketplaceUrl ?? "?"}/s/${survey.SurveyId}?`)).toBe(true);
      const survey = surveys.find((candidate) => candidate.SurveyUrl.includes("[#vq_tid#]"));
      expect(survey).toBeDefined();

      expect((await runSds(["account", "set-s2s", "--receiver", receiverUrl], home, { env })).code).toBe(0);
      const entry = await runSds(
        ["link", "entry", String(survey?.SurveyId), "--token", "t-cli-1", "--uid", "r-1"],
        home,
        { env },
      );
      expect(entry.code).toBe(0);
      const link = entry.stdout.trim();
      expect(link.startsWith(`${summary.marketplaceUrl ?? "?"}/s/`)).toBe(true);

      const visit = await fetch(link, { redirect: "manual" });
      const body = (await visit.json()) as { outcome: string; token: string };
      expect(visit.status).toBe(302);
      expect(body.token).toBe("t-cli-1");
      expect(["complete", "terminate", "overquota"]).toContain(body.outcome);
      await expect
        .poll(() => received)
        .toEqual([{ method: "GET", url: `/v1/outcomes/${body.outcome}?vq_token=t-cli-1` }]);

      const tampered = await fetch(link.replace("t-cli-1", "t-cli-2"), { redirect: "manual" });
      expect(tampered.status).toBe(403);
    } finally {
      sandbox.child.kill("SIGINT");
      await sandbox.result;
      await new Promise<void>((resolve) =>
        receiver.close(() => {
          resolve();
        }),
      );
    }
  });

  it("with --marketplace-port, prints the marketplace in the table and says how to use it, and a taken marketplace port exits 1 naming it", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      const refused = await runSds(["sandbox", "--marketplace", "--marketplace-port", String(taken)], home);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `error: cannot listen on 127.0.0.1:${taken}: the port is in use. Pick another --marketplace-port, or --marketplace-port 0 for a free one.\n`,
      );
    } finally {
      await new Promise<void>((resolve) =>
        blocker.close(() => {
          resolve();
        }),
      );
    }
    const sandbox = startSds(
      [
        "sandbox",
        "--output",
        "table",
        "--api-key",
        "k",
        "--surveys",
        "1",
        "--marketplace",
        "--marketplace-port",
        String(taken),
      ],
      home,
    );
    await sandbox.waitForOutput("S2S call");
    sandbox.child.kill("SIGINT");
    await sandbox.result;
    expect(sandbox.stdout()).toMatch(new RegExp(`Marketplace +http://127\\.0\\.0\\.1:${taken}\n`));
    expect(sandbox.stdout()).toMatch(new RegExp(`Marketplace control +http://127\\.0\\.0\\.1:${taken}/__sandbox\n`));
    expect(sandbox.stdout()).toContain(`http://127.0.0.1:${taken}/__sandbox/respondents/RESPONDENT_ID/answers`);
    expect(sandbox.stdout()).toContain("sds account set-s2s --receiver");
    expect(sandbox.stdout()).toContain(`http://127.0.0.1:${taken}/s/{SurveyId}`);
  });
});
