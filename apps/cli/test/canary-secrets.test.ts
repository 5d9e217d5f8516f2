import type { FaultSpec } from "@sds/testing";
import { describe, expect, it } from "vitest";
import { canaryApiKey } from "./support/fake-service.ts";
import { runSds, runSdsOnTerminal, type RunOptions, type SdsResult } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

/** Recognisable encryption keys, set on the fake account; like the API key, nothing prints them unasked. */
const incomingKey = "canary-ENC-in-0b8d2f7a61";
const outgoingKey = "canary-ENC-out-94c3e1d5aa";

const testbed = useCliTestbed({
  fake: {
    seed: 5,
    suppliers: [
      {
        supplierId: 1001,
        apiKey: canaryApiKey,
        surveys: 4,
        account: {
          IncomingEncryption: {
            Enabled: true,
            Algorithm: "SHA256",
            QueryParameter: "hash",
            EncryptionKey: incomingKey,
          },
          OutgoingEncryption: { Enabled: true, Algorithm: "SHA1", QueryParameter: "sig", EncryptionKey: outgoingKey },
        },
      },
    ],
  },
});

/** The secrets and recognisable pieces of them: a cut or re-wrapped secret is still a leak. */
const secrets = [
  canaryApiKey,
  canaryApiKey.slice(0, 12),
  canaryApiKey.slice(-10),
  incomingKey,
  outgoingKey,
  incomingKey.slice(-12),
  outgoingKey.slice(-12),
];

function expectNoSecret(result: SdsResult, what: string): void {
  const printed = result.stdout + result.stderr;
  for (const secret of secrets)
    expect(printed.includes(secret), `${what} printed ${JSON.stringify(secret)}`).toBe(false);
}

/** Runs `sds` with the key from the environment, from standard input, and from a saved profile. */
async function runWithEachKeySource(
  args: readonly string[],
  options: RunOptions = {},
): Promise<{ source: string; result: SdsResult }[]> {
  const env = testbed.fake.env;
  // --no-verify: the fake may be set to fail, and the profile must exist all the same.
  await runSds(["login", "--no-verify", "--base-url", testbed.fake.baseUrl, "--profile", "canary"], testbed.home, {
    input: `${canaryApiKey}\n`,
  });
  return Promise.all([
    runSds(args, testbed.home, { ...options, env: { ...env, ...options.env } }).then((result) => ({
      source: "SDS_API_KEY",
      result,
    })),
    runSds([...args, "--api-key-stdin"], testbed.home, {
      ...options,
      env: { SDS_BASE_URL: env.SDS_BASE_URL ?? "", ...options.env },
      input: `${canaryApiKey}\n`,
    }).then((result) => ({ source: "--api-key-stdin", result })),
    runSds([...args, "--profile", "canary"], testbed.home, {
      ...options,
      ...(options.env === undefined ? {} : { env: options.env }),
    }).then((result) => ({ source: "profile", result })),
  ]);
}

describe("a canary API key and canary encryption keys never appear in any output", () => {
  const commands: readonly (readonly string[])[] = [
    ["account", "show"],
    ["account", "show", "-o", "json"],
    ["account", "show", "-o", "csv"],
    ["account", "show", "-o", "ndjson"],
    ["surveys", "list", "-o", "csv"],
    ["collections", "languages"],
    ["export", "--format", "csv"],
    ["doctor"],
    ["doctor", "-o", "json"],
    ["account", "set-redirects", "--complete", "https://panel.example/done?rid=[%RID%]", "--dry-run"],
  ];

  for (const args of commands) {
    it(`sds ${args.join(" ")} --debug, with the key from the environment, stdin and a profile`, async () => {
      for (const { source, result } of await runWithEachKeySource([...args, "--debug"])) {
        expect(result.code, `${source}: ${result.stderr}`).toBe(0);
        expectNoSecret(result, `${args.join(" ")} (${source})`);
      }
    });
  }

  it("shows the encryption keys only with --reveal-secrets, and never the API key", async () => {
    const revealed = await runSds(["account", "show", "-o", "json", "--reveal-secrets", "--debug"], testbed.home, {
      env: testbed.fake.env,
    });
    expect(revealed.stdout).toContain(incomingKey);
    expect(revealed.stdout + revealed.stderr).not.toContain(canaryApiKey);
    const masked = await runSdsOnTerminal(["account", "show", "--debug"], testbed.home, { env: testbed.fake.env });
    expect(masked.stdout).toContain("********");
    expectNoSecret(masked, "account show on a terminal");
  });

  const failures: readonly { readonly name: string; readonly fault: FaultSpec; readonly code: number }[] = [
    { name: "HTTP 401", fault: { kind: "status", status: 401 }, code: 3 },
    { name: "HTTP 500", fault: { kind: "status", status: 500 }, code: 1 },
    {
      name: "hasError under HTTP 200",
      fault: { kind: "envelope-error", errorCode: "BUSY", message: "Try later." },
      code: 1,
    },
    { name: "malformed JSON", fault: { kind: "malformed-json" }, code: 6 },
    { name: "a reset connection", fault: { kind: "connection-reset" }, code: 5 },
  ];

  for (const { name, fault, code } of failures) {
    it(`reports ${name} (exit ${code}) with --debug details and no secret`, async () => {
      testbed.fake.api.faults.add(fault);
      try {
        for (const { source, result } of await runWithEachKeySource(["account", "show", "--debug", "--timeout", "5"])) {
          expect(result.code, source).toBe(code);
          expect(result.stderr, source).toContain("debug: ");
          expectNoSecret(result, `${name} (${source})`);
        }
      } finally {
        testbed.fake.api.faults.clear();
      }
    });
  }

  it("keeps the key out of login, doctor and usage, network and not-found errors", async () => {
    const runs = await Promise.all([
      runSds(["login", "--base-url", testbed.fake.baseUrl, "--debug"], testbed.home, { input: `${canaryApiKey}\n` }),
      runSds(["login", "--base-url", testbed.fake.baseUrl, "--debug", "-o", "json"], testbed.home, {
        env: { SDS_API_KEY: canaryApiKey },
      }),
      runSds(["login", "--base-url", testbed.fake.baseUrl, "--debug"], testbed.home, { input: "wrong-key\n" }),
      runSds(["doctor", "--debug"], testbed.home, {
        env: { SDS_BASE_URL: "http://127.0.0.1:9/api/v1", SDS_API_KEY: canaryApiKey },
      }),
      runSds(["surveys", "show", "999999999", "--debug"], testbed.home, { env: testbed.fake.env }),
      runSds(["surveys", "list", "--bogus", "--debug"], testbed.home, { env: testbed.fake.env }),
      runSds(["account", "show", "--debug", "--base-url", `${testbed.fake.baseUrl}/../x`], testbed.home, {
        env: testbed.fake.env,
      }),
      runSds(["account", "show", "--debug", "--timeout", "1"], testbed.home, {
        env: { SDS_BASE_URL: "http://127.0.0.1:9/api/v1", SDS_API_KEY: canaryApiKey },
      }),
    ]);
    expect(runs.map((run) => run.code)).toEqual([0, 0, 3, 5, 4, 2, 2, 5]);
    runs.forEach((run, index) => {
      expectNoSecret(run, `run ${index}`);
    });
  });
});
