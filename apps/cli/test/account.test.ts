import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MASKED_SECRET } from "@sds/schemas";
import { describe, expect, it } from "vitest";
import { runSds, runSdsOnTerminal } from "./support/run-sds.ts";
import { startFake } from "./support/fake-service.ts";
import { useCliTestbed } from "./support/testbed.ts";

const incomingKey = "incoming-SECRET-41c7";
const outgoingKey = "outgoing-SECRET-93d2";

const testbed = useCliTestbed({
  resetState: true,
  fake: {
    suppliers: [
      {
        supplierId: 1001,
        apiKey: "account-test-key",
        name: "Acme Panel",
        surveys: 3,
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

const puts = () => testbed.fake.api.requestLog().filter((entry) => entry.method === "PUT");
const run = (args: readonly string[], input?: string) =>
  runSds(args, testbed.home, { env: testbed.fake.env, ...(input === undefined ? {} : { input }) });

describe("sds account show", () => {
  it("masks both EncryptionKeys in JSON", async () => {
    const result = await run(["account", "show"]);
    expect(result.code).toBe(0);
    const account = JSON.parse(result.stdout) as {
      IncomingEncryption: { EncryptionKey: string };
      OutgoingEncryption: { EncryptionKey: string };
      Name: string;
    };
    expect(account.Name).toBe("Acme Panel");
    expect(account.IncomingEncryption.EncryptionKey).toBe(MASKED_SECRET);
    expect(account.OutgoingEncryption.EncryptionKey).toBe(MASKED_SECRET);
    expect(result.stdout).not.toContain(incomingKey);
  });

  it("masks them on a terminal, in every format, and with --debug", async () => {
    const runs = await Promise.all([
      runSdsOnTerminal(["account", "show"], testbed.home, { env: { ...testbed.fake.env, NO_COLOR: "1" } }),
      run(["account", "show", "-o", "csv"]),
      run(["account", "show", "-o", "ndjson"]),
      run(["account", "show", "-o", "table", "--debug"]),
    ]);
    for (const result of runs) {
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(incomingKey);
      expect(result.stdout + result.stderr).not.toContain(outgoingKey);
    }
    const [terminal, csv, ndjson] = runs;
    expect(terminal.stdout).toMatch(/EncryptionKey\S*\s+\*{8}/);
    expect(terminal.stdout).toContain("Redirect URLs");
    expect(csv.stdout).toContain(`IncomingEncryption.EncryptionKey,${MASKED_SECRET}\r\n`);
    expect(ndjson.stdout.trimEnd().split("\n")).toHaveLength(1);
  });

  it("shows them with --reveal-secrets", async () => {
    const result = await run(["account", "show", "--reveal-secrets"]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      IncomingEncryption: { EncryptionKey: incomingKey },
      OutgoingEncryption: { EncryptionKey: outgoingKey },
    });
  });
});

describe("sds account set-redirects --sync-return-url", () => {
  it("points all four redirect URLs at sds-sync's return with the token placeholder and enables them; the S2S URLs stay", async () => {
    const before = testbed.fake.api.getAccount(1001);
    const result = await run(["account", "set-redirects", "--sync-return-url", "https://sync.example.com/"]);
    expect(result.code).toBe(0);
    const after = testbed.fake.api.getAccount(1001);
    expect(after.RedirectUrls).toEqual({
      Enabled: true,
      CompleteUrl: "https://sync.example.com/v1/return/complete?vq_token=[#vq_tid#]",
      TerminateUrl: "https://sync.example.com/v1/return/terminate?vq_token=[#vq_tid#]",
      OverQuotaUrl: "https://sync.example.com/v1/return/overquota?vq_token=[#vq_tid#]",
      SecurityTerminateUrl: "https://sync.example.com/v1/return/security?vq_token=[#vq_tid#]",
    });
    expect(after.S2SUrls).toEqual(before.S2SUrls);
    expect(puts().map((entry) => entry.path)).toEqual(["/api/v1/supplier-account/1001/redirect-url"]);
  });

  it("takes sds-sync's token parameter, refuses single-URL flags beside it, and is in --help", async () => {
    const custom = await run([
      "account",
      "set-redirects",
      "--sync-return-url",
      "https://s.example",
      "--token-param",
      "tid",
    ]);
    expect(custom.code).toBe(0);
    expect(testbed.fake.api.getAccount(1001).RedirectUrls.TerminateUrl).toBe(
      "https://s.example/v1/return/terminate?tid=[#vq_tid#]",
    );
    const clash = await run([
      "account",
      "set-redirects",
      "--sync-return-url",
      "https://s.example",
      "--complete",
      "https://c.example",
    ]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain("--sync-return-url sets all four URLs");
    expect((await run(["account", "set-redirects", "--token-param", "tid", "--enable"])).code).toBe(2);
    for (const bad of ["sync.example.com", "https://sync.example.com/?x=1", "https://u:p@sync.example.com"]) {
      const refused = await run(["account", "set-redirects", "--sync-return-url", bad]);
      expect(refused.code, bad + refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/^error: --sync-return-url: /);
      expect(refused.stderr).not.toContain("u:p@");
    }
    const badParameter = await run([
      "account",
      "set-redirects",
      "--sync-return-url",
      "https://s.example",
      "--token-param",
      "a b",
    ]);
    expect(badParameter.stderr).toMatch(/^error: --token-param: /);
    const help = await run(["account", "set-redirects", "--help"]);
    expect(help.stdout).toContain("--sync-return-url");
    expect(help.stdout).toContain("/v1/return/");
  });
});

describe("sds account set-redirects and set-s2s", () => {
  it("changes only the URL passed; the others keep their values", async () => {
    const before = testbed.fake.api.getAccount(1001);
    const result = await run(["account", "set-redirects", "--complete", "https://panel.example/done?rid=[%RID%]"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      sent: true,
      dryRun: false,
      changes: [{ field: "CompleteUrl", after: "https://panel.example/done?rid=[%RID%]" }],
    });
    const after = testbed.fake.api.getAccount(1001);
    expect(after.RedirectUrls).toEqual({
      ...before.RedirectUrls,
      CompleteUrl: "https://panel.example/done?rid=[%RID%]",
    });
    expect(after.S2SUrls).toEqual(before.S2SUrls);
    expect(puts().map((entry) => entry.path)).toEqual(["/api/v1/supplier-account/1001/redirect-url"]);
  });

  it("updates the S2S URLs with set-s2s and shows the diff and the confirmation on a terminal", async () => {
    const before = testbed.fake.api.getAccount(1001);
    const result = await runSdsOnTerminal(
      ["account", "set-s2s", "--terminate", "https://s2s.example/t?rid={rid}", "--disable", "--no-color"],
      testbed.home,
      { env: testbed.fake.env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Changed the S2S URLs of supplier 1001 (Acme Panel):");
    expect(result.stdout).toContain(`- ${before.S2SUrls.TerminateUrl}`);
    expect(result.stdout).toContain("+ https://s2s.example/t?rid={rid}");
    expect(result.stdout).toContain("Enabled  true → false");
    expect(result.stdout).toMatch(/✓ .*S2S/);
    expect(testbed.fake.api.getAccount(1001).S2SUrls).toEqual({
      ...before.S2SUrls,
      TerminateUrl: "https://s2s.example/t?rid={rid}",
      Enabled: false,
    });
    expect(testbed.fake.api.getAccount(1001).RedirectUrls).toEqual(before.RedirectUrls);
  });

  it("--dry-run prints the diff and sends no PUT", async () => {
    const before = testbed.fake.api.getAccount(1001);
    const result = await runSdsOnTerminal(
      ["account", "set-redirects", "--over-quota", "https://panel.example/oq", "--dry-run", "--no-color"],
      testbed.home,
      { env: testbed.fake.env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Would change the redirect URLs");
    expect(result.stdout).toContain("+ https://panel.example/oq");
    expect(result.stdout).toContain("Dry run: nothing was sent.");
    const json = await run(["account", "set-redirects", "--over-quota", "https://panel.example/oq", "--dry-run"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      dryRun: true,
      sent: false,
      changes: [{ field: "OverQuotaUrl", before: before.RedirectUrls.OverQuotaUrl }],
    });
    expect(puts()).toEqual([]);
    expect(testbed.fake.api.getAccount(1001).RedirectUrls).toEqual(before.RedirectUrls);
  });

  it("sends nothing when nothing would change", async () => {
    const current = testbed.fake.api.getAccount(1001).RedirectUrls;
    const result = await runSdsOnTerminal(
      ["account", "set-redirects", "--complete", current.CompleteUrl, current.Enabled ? "--enable" : "--disable"],
      testbed.home,
      { env: testbed.fake.env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Nothing to change");
    expect(puts()).toEqual([]);
  });

  it("validates URLs before sending: an invalid one is exit 2 and no PUT", async () => {
    for (const url of ["not a url", "ftp://files.example/x", "/relative/path"]) {
      const result = await run(["account", "set-redirects", "--terminate", url]);
      expect(result.code, url).toBe(2);
      expect(result.stderr, url).toMatch(
        /^error: invalid TerminateUrl .*: expected an absolute http or https URL\. Nothing was sent\.\n$/,
      );
    }
    expect(puts()).toEqual([]);
  });

  it("refuses --enable with --disable, and a call that changes nothing at all", async () => {
    const both = await run(["account", "set-redirects", "--enable", "--disable"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--enable and --disable contradict each other");
    const none = await run(["account", "set-s2s"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: nothing to change: pass --complete/);
    expect(testbed.fake.api.requestLog()).toEqual([]);
  });

  it("reads fields from --from-file, with flags winning, and rejects unknown fields", async () => {
    const file = join(testbed.home.path, "redirects.json");
    writeFileSync(
      file,
      JSON.stringify({ CompleteUrl: "https://file.example/c", TerminateUrl: "https://file.example/t", Enabled: false }),
    );
    const before = testbed.fake.api.getAccount(1001).RedirectUrls;
    const result = await run([
      "account",
      "set-redirects",
      "--from-file",
      file,
      "--terminate",
      "https://flag.example/t",
    ]);
    expect(result.code).toBe(0);
    expect(testbed.fake.api.getAccount(1001).RedirectUrls).toEqual({
      ...before,
      CompleteUrl: "https://file.example/c",
      TerminateUrl: "https://flag.example/t",
      Enabled: false,
    });

    writeFileSync(file, JSON.stringify({ CompleteURL: "https://typo.example/c" }));
    const typo = await run(["account", "set-redirects", "--from-file", file]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown field "CompleteURL"');
    writeFileSync(file, "{ nope");
    const broken = await run(["account", "set-redirects", "--from-file", file]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/is not valid JSON/);
    const missing = await run(["account", "set-redirects", "--from-file", join(testbed.home.path, "missing.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: cannot read .*missing\.json/);
  });

  it("reads --from-file - from standard input", async () => {
    const result = await run(
      ["account", "set-s2s", "--from-file", "-", "--dry-run"],
      JSON.stringify({ OverQuotaUrl: "https://stdin.example/oq" }),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      changes: [{ field: "OverQuotaUrl", after: "https://stdin.example/oq" }],
    });
  });

  it("names a stored URL that is itself invalid, so the user knows which flag fixes it, and sends nothing", async () => {
    const legacy = await startFake({
      suppliers: [
        {
          supplierId: 2002,
          apiKey: "legacy-key",
          surveys: 1,
          account: {
            RedirectUrls: {
              Enabled: true,
              CompleteUrl: "https://ok.example/c",
              TerminateUrl: "legacy terminate page",
              OverQuotaUrl: "https://ok.example/oq",
              SecurityTerminateUrl: "https://ok.example/s",
            },
          },
        },
      ],
    });
    try {
      const result = await runSds(["account", "set-redirects", "--complete", "https://new.example/c"], testbed.home, {
        env: legacy.env,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'TerminateUrl "legacy terminate page": expected an absolute http or https URL (the current value; pass a new one to fix it)',
      );
      expect(legacy.api.requestLog().filter((entry) => entry.method === "PUT")).toEqual([]);
      const fixed = await runSds(["account", "set-redirects", "--terminate", "https://new.example/t"], testbed.home, {
        env: legacy.env,
      });
      expect(fixed.code).toBe(0);
      expect(legacy.api.getAccount(2002).RedirectUrls.TerminateUrl).toBe("https://new.example/t");
    } finally {
      await legacy.close();
    }
  });
});
