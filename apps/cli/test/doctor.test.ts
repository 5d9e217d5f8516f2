import { describe, expect, it } from "vitest";
import { canaryApiKey } from "./support/fake-service.ts";
import { startProxy } from "./support/proxy.ts";
import { runSds, runSdsOnTerminal } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const testbed = useCliTestbed();

interface Report {
  readonly ok: boolean;
  readonly checks: readonly { readonly name: string; readonly status: string; readonly detail: string }[];
}

const statuses = (report: Report) => Object.fromEntries(report.checks.map((check) => [check.name, check.status]));

describe("sds doctor", () => {
  it("passes every check against a healthy service", async () => {
    const result = await runSds(["doctor"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(statuses(report)).toEqual({
      Configuration: "ok",
      "Base URL": "ok",
      "API key": "ok",
      Reachable: "ok",
      "Key accepted": "ok",
      Latency: "ok",
      "Clock skew": "ok",
    });
    expect(report.checks.find((check) => check.name === "Key accepted")?.detail).toMatch(/^supplier 1001 /);
    expect(report.checks.find((check) => check.name === "API key")?.detail).toBe("set (from SDS_API_KEY)");
    expect(report.checks.find((check) => check.name === "Latency")?.detail).toMatch(/^\d+ ms median of 3/);
    expect(result.stdout).not.toContain(canaryApiKey);
  });

  it("prints one line per check on a terminal", async () => {
    const result = await runSdsOnTerminal(["doctor", "--no-color"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✓ Configuration\s+profile "default" not saved/);
    expect(result.stdout).toMatch(/✓ Key accepted\s+supplier 1001/);
    expect(result.stdout).toMatch(/✓ Clock skew\s+in step with the server/);
  });

  it("exits 3 when the key is rejected, the service being reachable", async () => {
    const result = await runSds(["doctor"], testbed.home, { env: { ...testbed.fake.env, SDS_API_KEY: "wrong" } });
    expect(result.code).toBe(3);
    expect(statuses(JSON.parse(result.stdout) as Report)).toMatchObject({
      Reachable: "ok",
      "Key accepted": "fail",
      Latency: "skip",
      "Clock skew": "skip",
    });
    expect(result.stderr).toMatch(/^error: doctor: key accepted failed: GET \/supplier-account failed with HTTP 401/);
    // The server's sentence ends in a full stop: the question follows as a sentence, not after "; ".
    expect(result.stderr).toContain(
      "The API key is not valid. Is the key for this deployment (sandbox or production)?",
    );
    expect(result.stdout + result.stderr).not.toMatch(/[.!?][;:] /);
  });

  it("exits 5 when the base URL is unreachable", async () => {
    const result = await runSds(["doctor", "--timeout", "2"], testbed.home, {
      env: { ...testbed.fake.env, SDS_BASE_URL: "http://127.0.0.1:9/api/v1" },
    });
    expect(result.code).toBe(5);
    expect(statuses(JSON.parse(result.stdout) as Report)).toMatchObject({ Reachable: "fail", "Key accepted": "skip" });
  });

  it("exits 4 and points at /api/v1 when the host answers but the path is wrong", async () => {
    const result = await runSds(["doctor"], testbed.home, {
      env: { ...testbed.fake.env, SDS_BASE_URL: testbed.fake.baseUrl.replace(/\/api\/v1$/, "") },
    });
    expect(result.code).toBe(4);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.checks.find((check) => check.name === "Base URL")?.detail).toContain(
      "base URLs normally end in /api/v1",
    );
    expect(report.checks.find((check) => check.name === "Reachable")?.detail).toContain(
      "the base URL must end in /api/v1",
    );
  });

  it("reports missing configuration instead of failing outright", async () => {
    const noKey = await runSds(["doctor"], testbed.home, { env: { SDS_BASE_URL: testbed.fake.baseUrl } });
    expect(noKey.code).toBe(3);
    expect(statuses(JSON.parse(noKey.stdout) as Report)).toMatchObject({
      "Base URL": "ok",
      "API key": "fail",
      Reachable: "skip",
    });
    const nothing = await runSds(["doctor"], testbed.home);
    expect(nothing.code).toBe(2);
    expect(statuses(JSON.parse(nothing.stdout) as Report)).toMatchObject({ Configuration: "ok", "Base URL": "fail" });
  });

  it("warns about a profiles file others can read", async () => {
    await runSds(["login", "--base-url", testbed.fake.baseUrl], testbed.home, { input: canaryApiKey });
    const { chmodSync } = await import("node:fs");
    chmodSync(`${testbed.home.configPath}/sds/profiles.json`, 0o644);
    const result = await runSds(["doctor"], testbed.home);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.checks[0]).toMatchObject({ name: "Configuration", status: "warn" });
    expect(report.checks[0]?.detail).toContain("is readable by others (mode 644)");
  });

  it("warns about clock skew against the server's Date header", async () => {
    // The server's clock is two minutes behind this machine's.
    const skewed = await startProxy(testbed.fake.api, { date: () => new Date(Date.now() - 120_000) });
    try {
      const result = await runSds(["doctor"], testbed.home, {
        env: { ...testbed.fake.env, SDS_BASE_URL: skewed.baseUrl },
      });
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.checks.find((check) => check.name === "Clock skew")).toMatchObject({ status: "warn" });
      expect(report.checks.find((check) => check.name === "Clock skew")?.detail).toMatch(
        /this machine's clock is 1[12]\d s ahead of the server/,
      );
    } finally {
      await skewed.close();
    }
  });
});
