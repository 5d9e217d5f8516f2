import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canaryApiKey } from "./support/fake-service.ts";
import { runSds } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const testbed = useCliTestbed();

describe("a base URL the client's validator refuses is a usage error, before any request", () => {
  it("refuses --base-url with '..' segments (exit 2) instead of sending the key to another path", async () => {
    const result = await runSds(
      ["account", "show", "--base-url", `${testbed.fake.baseUrl}/../../__sandbox`],
      testbed.home,
      { env: testbed.fake.env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: --base-url: Invalid base URL: .* must not contain "\." or "\.\." path segments/,
    );
    expect(testbed.fake.api.requestLog()).toEqual([]);
  });

  it("refuses SDS_BASE_URL with percent-encoded dot segments (exit 2)", async () => {
    const result = await runSds(["surveys", "list"], testbed.home, {
      env: { ...testbed.fake.env, SDS_BASE_URL: `${testbed.fake.baseUrl}/%2e%2e/%2E%2E/__sandbox` },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: SDS_BASE_URL: Invalid base URL: .*path segments/);
    expect(testbed.fake.api.requestLog()).toEqual([]);
  });

  it("refuses credentials in the URL at login (exit 2) without printing them", async () => {
    const withCredentials = testbed.fake.baseUrl.replace("http://", "http://someone:url-pass-4d2f@");
    const result = await runSds(["login", "--base-url", withCredentials], testbed.home, { input: `${canaryApiKey}\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --base-url: Invalid base URL: .* must not carry credentials/);
    expect(result.stdout + result.stderr).not.toContain("url-pass-4d2f");
    expect(testbed.fake.api.requestLog()).toEqual([]);
  });

  it("refuses a saved profile whose base URL was edited to hold dot segments or credentials (exit 2)", async () => {
    mkdirSync(join(testbed.home.configPath, "sds"), { recursive: true });
    const profile = (baseUrl: string) => ({ baseUrl, apiKey: canaryApiKey, savedAt: "2026-01-01T00:00:00.000Z" });
    writeFileSync(
      join(testbed.home.configPath, "sds", "profiles.json"),
      JSON.stringify({
        version: 1,
        profiles: {
          dots: profile(`${testbed.fake.baseUrl}/../../__sandbox`),
          creds: profile(testbed.fake.baseUrl.replace("http://", "http://u:profile-pass-77@")),
        },
      }),
      { mode: 0o600 },
    );
    for (const name of ["dots", "creds"]) {
      const result = await runSds(["account", "show", "--profile", name], testbed.home);
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toMatch(new RegExp(`^error: profile "${name}": Invalid base URL`));
      expect(result.stderr.trimEnd().split("\n"), name).toHaveLength(1);
      expect(result.stdout + result.stderr, name).not.toContain("profile-pass-77");
    }
    expect(testbed.fake.api.requestLog()).toEqual([]);
  });
});
