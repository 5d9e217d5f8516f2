import { readFileSync, statSync, mkdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canaryApiKey } from "./support/fake-service.ts";
import { runSds, runSdsOnTerminal } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const testbed = useCliTestbed();

const profilesFile = () => join(testbed.home.configPath, "sds", "profiles.json");
const readProfiles = () =>
  JSON.parse(readFileSync(profilesFile(), "utf8")) as {
    profiles: Record<string, { baseUrl: string; apiKey: string; supplierId?: string }>;
  };

describe("where the base URL and key come from", () => {
  it("takes both from SDS_BASE_URL and SDS_API_KEY", async () => {
    const result = await runSds(["account", "show", "-o", "json"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ Id: "1001" });
  });

  it("prefers --base-url over SDS_BASE_URL", async () => {
    const result = await runSds(["account", "show", "--base-url", testbed.fake.baseUrl], testbed.home, {
      env: { ...testbed.fake.env, SDS_BASE_URL: "http://127.0.0.1:9/api/v1" },
    });
    expect(result.code).toBe(0);
  });

  it("reads the key from standard input with --api-key-stdin, trimmed, in preference to SDS_API_KEY", async () => {
    const result = await runSds(["account", "show", "--api-key-stdin"], testbed.home, {
      env: { SDS_BASE_URL: testbed.fake.baseUrl, SDS_API_KEY: "wrong-key" },
      input: `${canaryApiKey}\n`,
    });
    expect(result.code).toBe(0);
    expect(testbed.fake.api.requestLog().map((entry) => entry.status)).toEqual([200]);
  });

  it("rejects an empty key on standard input as a usage error", async () => {
    const result = await runSds(["account", "show", "--api-key-stdin"], testbed.home, {
      env: { SDS_BASE_URL: testbed.fake.baseUrl },
      input: "\n",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --api-key-stdin read an empty key/);
  });
});

describe("sds login and profiles", () => {
  it("checks the key, then saves the profile readable by its owner only", async () => {
    const result = await runSds(["login", "--base-url", `${testbed.fake.baseUrl}/`], testbed.home, {
      input: `${canaryApiKey}\n`,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      profile: "default",
      supplierId: "1001",
      verified: true,
      baseUrl: testbed.fake.baseUrl,
    });
    expect(result.stdout).not.toContain(canaryApiKey);
    expect(statSync(profilesFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(testbed.home.configPath, "sds")).mode & 0o777).toBe(0o700);
    expect(readProfiles().profiles.default).toMatchObject({
      baseUrl: testbed.fake.baseUrl,
      apiKey: canaryApiKey,
      supplierId: "1001",
    });

    // Afterwards commands need neither variable.
    const show = await runSds(["account", "show", "-o", "json"], testbed.home);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ Id: "1001" });
  });

  it("saves nothing and exits 3 when the service rejects the key", async () => {
    const result = await runSds(["login", "--base-url", testbed.fake.baseUrl], testbed.home, {
      input: "not-the-key\n",
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: GET \/supplier-account failed with HTTP 401/);
    expect(existsSync(profilesFile())).toBe(false);
  });

  it("asks for the key without echoing it on a terminal", async () => {
    const result = await runSdsOnTerminal(["login", "--base-url", testbed.fake.baseUrl, "--no-color"], testbed.home, {
      answer: { after: "API key (input hidden): ", input: `${canaryApiKey}\r` },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("API key (input hidden): ");
    expect(result.stdout).toContain('saved profile "default"');
    expect(result.stdout).not.toContain(canaryApiKey);
    expect(readProfiles().profiles.default?.apiKey).toBe(canaryApiKey);
  });

  it("keeps several profiles and picks one with --profile or SDS_PROFILE", async () => {
    await runSds(["login", "--profile", "sandbox", "--base-url", testbed.fake.baseUrl], testbed.home, {
      input: canaryApiKey,
    });
    await runSds(
      ["login", "--profile", "broken", "--base-url", "http://127.0.0.1:9/api/v1", "--no-verify"],
      testbed.home,
      { input: "whatever" },
    );
    expect(Object.keys(readProfiles().profiles).sort()).toEqual(["broken", "sandbox"]);

    expect((await runSds(["account", "show", "--profile", "sandbox"], testbed.home)).code).toBe(0);
    expect((await runSds(["account", "show"], testbed.home, { env: { SDS_PROFILE: "sandbox" } })).code).toBe(0);
    // The flag wins over the variable; the broken profile's port refuses connections.
    expect(
      (
        await runSds(["account", "show", "--profile", "broken", "--timeout", "2"], testbed.home, {
          env: { SDS_PROFILE: "sandbox" },
        })
      ).code,
    ).toBe(5);
  });

  it("sds auth status lists the saved profiles, marks the active one and says where its key comes from, never printing a key", async () => {
    await runSds(["login", "--profile", "sandbox", "--base-url", testbed.fake.baseUrl], testbed.home, {
      input: canaryApiKey,
    });
    await runSds(["login", "--base-url", testbed.fake.baseUrl, "--no-verify"], testbed.home, {
      input: "other-key-1b2c3d4e5f",
    });

    const byDefault = await runSds(["auth", "status"], testbed.home);
    expect(byDefault.code).toBe(0);
    expect(JSON.parse(byDefault.stdout)).toMatchObject({
      activeProfile: { name: "default", selectedBy: "default", saved: true },
      baseUrl: { value: testbed.fake.baseUrl, source: 'profile "default"' },
      apiKey: { source: 'profile "default"' },
      profiles: [
        { name: "sandbox", active: false, supplierId: "1001" },
        { name: "default", active: true, supplierId: null },
      ],
    });

    const fromEnvironment = await runSdsOnTerminal(["auth", "status", "--no-color"], testbed.home, {
      env: { SDS_PROFILE: "sandbox", SDS_API_KEY: canaryApiKey },
    });
    expect(fromEnvironment.code).toBe(0);
    expect(fromEnvironment.stdout).toMatch(/\*\s+sandbox\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1\s+1001/);
    expect(fromEnvironment.stdout).toContain('Active profile: "sandbox" (named by --profile or SDS_PROFILE)');
    expect(fromEnvironment.stdout).toContain("API key: set (from SDS_API_KEY; never shown)");

    for (const result of [byDefault, fromEnvironment]) {
      expect(result.stdout + result.stderr).not.toContain(canaryApiKey);
      expect(result.stdout + result.stderr).not.toContain("other-key-1b2c3d4e5f");
    }
    expect(testbed.fake.api.requestLog().filter((entry) => entry.operationId === "getSupplierAccount")).toHaveLength(1);
  });

  it("sds auth status says nothing is saved, and exits 3 without a key as other commands do", async () => {
    const result = await runSds(["auth", "status", "-o", "table"], testbed.home, {
      env: { SDS_BASE_URL: testbed.fake.baseUrl },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("No profiles saved in");
    expect(result.stdout).toContain("API key: not configured");
    expect(result.stderr).toBe(
      "error: no API key configured. Set SDS_API_KEY, pipe it to --api-key-stdin, or run `sds login`.\n",
    );
  });

  it("lets SDS_BASE_URL and SDS_API_KEY override a saved profile", async () => {
    await runSds(["login", "--base-url", "http://127.0.0.1:9/api/v1", "--no-verify"], testbed.home, {
      input: "stale-key",
    });
    const result = await runSds(["account", "show"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(0);
  });

  it("fails with exit 2 for a profile that is named but missing, and for a bad profile name", async () => {
    const missing = await runSds(["account", "show", "--profile", "ghost"], testbed.home, { env: testbed.fake.env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no profile named "ghost"');
    expect(missing.stderr).toContain("sds login --profile ghost");
    const bad = await runSds(["account", "show", "--profile", "../etc"], testbed.home, { env: testbed.fake.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: "..\/etc" is not a valid profile name/);
  });

  it("treats names of Object.prototype members as plain profile names, by flag and by SDS_PROFILE", async () => {
    for (const name of ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"]) {
      for (const how of [
        { args: ["--profile", name], env: {} },
        { args: [], env: { SDS_PROFILE: name } },
      ]) {
        const label = `${name} ${how.args.length > 0 ? "by flag" : "by SDS_PROFILE"}`;
        const show = await runSds(["account", "show", ...how.args], testbed.home, {
          env: { ...how.env, SDS_API_KEY: "unused" },
        });
        expect(show.code, label).toBe(2);
        expect(show.stderr.trimEnd().split("\n"), label).toHaveLength(1);
        expect(show.stderr, label).toMatch(
          name === "__proto__"
            ? /^error: "__proto__" is not a valid profile name/
            : new RegExp(`^error: no profile named "${name}"`),
        );
        const logout = await runSds(["logout", ...how.args], testbed.home, { env: how.env });
        expect(logout.code, label).toBe(2);
      }
    }
    // Saved under such a name, it is an ordinary profile.
    const login = await runSds(
      ["login", "--profile", "constructor", "--base-url", testbed.fake.baseUrl],
      testbed.home,
      { input: canaryApiKey },
    );
    expect(login.code).toBe(0);
    const show = await runSds(["account", "show", "-o", "json"], testbed.home, { env: { SDS_PROFILE: "constructor" } });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ Id: "1001" });
    expect(Object.keys(readProfiles().profiles)).toEqual(["constructor"]);
    expect((await runSds(["logout", "--profile", "constructor", "-o", "json"], testbed.home)).stdout).toContain(
      '"removed": [\n    "constructor"\n  ]',
    );
  });

  it("answers a command word named like an Object.prototype member as an unknown command", async () => {
    for (const word of ["constructor", "toString", "__proto__"]) {
      const result = await runSds([word], testbed.home);
      expect(result, word).toMatchObject({ code: 2, stdout: "" });
      expect(result.stderr, word).toMatch(new RegExp(`^error: unknown command "${word}"`));
    }
  });

  it("reports a corrupt profiles file in one line (exit 1) instead of a stack", async () => {
    mkdirSync(join(testbed.home.configPath, "sds"), { recursive: true });
    writeFileSync(profilesFile(), "{ not json");
    const result = await runSds(["account", "show"], testbed.home, { env: testbed.fake.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: the profiles file ${profilesFile()} is not valid JSON. Fix it, or delete it and run \`sds login\` again.\n`,
    );
  });

  it("logs out of one profile or all; a named profile must exist, an unsaved default is not an error", async () => {
    await runSds(["login", "--profile", "a", "--base-url", testbed.fake.baseUrl], testbed.home, {
      input: canaryApiKey,
    });
    await runSds(["login", "--profile", "b", "--base-url", testbed.fake.baseUrl], testbed.home, {
      input: canaryApiKey,
    });
    const first = await runSds(["logout", "--profile", "a"], testbed.home);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ removed: ["a"] });
    expect(Object.keys(readProfiles().profiles)).toEqual(["b"]);
    const again = await runSds(["logout", "--profile", "a"], testbed.home);
    expect(again).toMatchObject({ code: 2, stdout: "" });
    expect(again.stderr).toMatch(/^error: no profile named "a" in /);
    const unsavedDefault = await runSdsOnTerminal(["logout"], testbed.home);
    expect(unsavedDefault.code).toBe(0);
    expect(unsavedDefault.stdout).toContain('No profile "default" saved; nothing to do.');
    await runSds(["logout", "--all"], testbed.home);
    expect(readProfiles().profiles).toEqual({});
    expect(statSync(profilesFile()).mode & 0o777).toBe(0o600);
  });

  it("never prints the key: not in output, errors or the --debug trace", async () => {
    await runSds(["login", "--base-url", testbed.fake.baseUrl], testbed.home, { input: canaryApiKey });
    testbed.fake.api.faults.add({ kind: "status", status: 500, operation: "listSurveys" });
    try {
      const runs = await Promise.all([
        runSds(["account", "show", "--debug"], testbed.home),
        runSds(["surveys", "list", "--debug", "--timeout", "5"], testbed.home),
        runSds(["doctor", "--debug"], testbed.home),
        runSdsOnTerminal(["doctor", "--debug"], testbed.home),
      ]);
      for (const run of runs) {
        expect(run.stdout + run.stderr).not.toContain(canaryApiKey);
      }
      const failed = runs[1];
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain("debug: → GET");
      expect(failed.stderr).toMatch(/EQ-PARTNER-ACCESS-KEY: \[REDACTED\]/i);
    } finally {
      testbed.fake.api.faults.clear();
    }
  });
});
