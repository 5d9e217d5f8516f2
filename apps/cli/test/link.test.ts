import { createHmac } from "node:crypto";
import { verifySignedUrl } from "@sds/routing";
import { createFakeMarketplace } from "@sds/testing";
import { describe, expect, it } from "vitest";
import { runSds } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const incomingKey = "incoming-LINK-SECRET-5e1a";
const outgoingKey = "outgoing-LINK-SECRET-77b0";
const lucidKey = "ZZ6VkORqV25iSWOVb5cwZ03zpns";
const lucidUrl = "https://www.abc.com/ex.aspx?abc=def&vid=123";
const lucidSigned = `${lucidUrl}&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ`;

const testbed = useCliTestbed({
  fake: {
    suppliers: [
      {
        supplierId: 1001,
        apiKey: "link-test-key",
        surveys: 12,
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

const run = (args: readonly string[], options: { readonly key?: string; readonly input?: string } = {}) =>
  runSds(args, testbed.home, {
    env: { ...testbed.fake.env, ...(options.key === undefined ? {} : { SDS_ENCRYPTION_KEY: options.key }) },
    ...(options.input === undefined ? {} : { input: options.input }),
  });

describe("sds link sign", () => {
  it("prints Lucid's published vector with the key from SDS_ENCRYPTION_KEY, or from --key-stdin", async () => {
    const fromEnvironment = await run(["link", "sign", lucidUrl], { key: lucidKey });
    expect(fromEnvironment).toMatchObject({ code: 0, stdout: `${lucidSigned}\n` });
    const fromStdin = await run(["link", "sign", lucidUrl, "--key-stdin", "--algorithm", "hmac-sha1"], {
      input: `${lucidKey}\n`,
    });
    expect(fromStdin).toMatchObject({ code: 0, stdout: `${lucidSigned}\n` });
  });

  it("signs with the account's IncomingEncryption when no key is given, and honours --param and --encoding", async () => {
    const signed = await run(["link", "sign", "https://survey.example/s/1?tid=abc"]);
    expect(signed.code).toBe(0);
    expect(verifySignedUrl(signed.stdout.trim(), incomingKey, { algorithm: "SHA256" })).toEqual({ valid: true });
    const hex = await run(["link", "sign", "https://survey.example/s/1", "--param", "sig", "--encoding", "hex"]);
    expect(hex.stdout.trim()).toMatch(/^https:\/\/survey\.example\/s\/1\?sig=[0-9a-f]{64}$/);
  });

  it("refuses with exit 2, signing nothing, what is no http(s) URL or still holds a placeholder", async () => {
    const cases: readonly [string, RegExp][] = [
      [
        "",
        /^error: the URL is not an http\(s\):\/\/host\[:port\]\/… URL\. Give a full http:\/\/ or https:\/\/ URL, quoted for the shell\.\n$/,
      ],
      ["not a url", /^error: the URL is not an http\(s\)/],
      ["javascript:alert(document.cookie)", /^error: the URL is a javascript: URL; only http: and https: URLs/],
      ["https://user:pw-5f1e@survey.example/s/1", /^error: the URL has user information/],
      [
        "https://survey.example/s/1?rid=[%RID%]",
        /^error: the URL holds placeholders that nothing fills: \[%RID%\]\. Fill the placeholders first/,
      ],
    ];
    for (const [url, message] of cases) {
      const result = await run(["link", "sign", url], { key: lucidKey });
      expect(result.code, url).toBe(2);
      expect(result.stdout, url).toBe("");
      expect(result.stderr, url).toMatch(message);
      expect(result.stderr).not.toContain("pw-5f1e");
    }
  });

  it("signs with any non-empty key, warning under 16 characters and never marking ordinary words as redacted", async () => {
    const url = "https://survey.example/s/1?tid=unknown";
    for (const key of ["k", "thirteen-char", "fifteen-chars-k"]) {
      const expected = `${url}&hash=${createHmac("sha1", key).update(`${url}&`).digest("base64url")}`;
      for (const result of [
        await run(["link", "sign", url], { key }),
        await run(["link", "sign", url, "--key-stdin"], { input: `${key}\n` }),
      ]) {
        expect(result, key).toMatchObject({ code: 0, stdout: `${expected}\n` });
        expect(result.stderr, key).toMatch(
          /^warning: the key from (SDS_ENCRYPTION_KEY|--key-stdin) is shorter than 16 characters: fine for a documented example/,
        );
        expect(result.stderr, key).not.toContain("[redacted]");
      }
      expect(await run(["link", "verify", expected, "--key-stdin"], { input: `${key}\n` }), key).toMatchObject({
        code: 0,
        stdout: "valid\n",
      });
    }
    const empty = await run(["link", "sign", url, "--key-stdin"], { input: "\n" });
    expect(empty).toMatchObject({ code: 2, stdout: "", stderr: "error: --key-stdin read an empty key\n" });
  });

  it("says on stderr which key signed: the account's IncomingEncryption by default, OutgoingEncryption with --encryption outgoing", async () => {
    const url = "https://panel.example/v1/outcomes/complete?vq_token=t1";
    const incoming = await run(["link", "sign", url]);
    expect(incoming).toMatchObject({ code: 0, stderr: "Signed with the account's IncomingEncryption key.\n" });
    expect(verifySignedUrl(incoming.stdout.trim(), incomingKey, { algorithm: "SHA256" })).toEqual({ valid: true });
    const outgoing = await run(["link", "sign", url, "--encryption", "outgoing"], { key: lucidKey });
    expect(outgoing).toMatchObject({ code: 0, stderr: "Signed with the account's OutgoingEncryption key.\n" });
    expect(verifySignedUrl(outgoing.stdout.trim(), outgoingKey, { algorithm: "SHA1", parameter: "sig" })).toEqual({
      valid: true,
    });
    const fromEnvironment = await run(["link", "sign", url, "-o", "json"], { key: lucidKey });
    expect(fromEnvironment.stderr).toBe("Signed with the key from SDS_ENCRYPTION_KEY.\n");
    expect(JSON.parse(fromEnvironment.stdout)).toMatchObject({ key: "SDS_ENCRYPTION_KEY" });
    const both = await run(["link", "sign", url, "--encryption", "incoming", "--key-stdin"], { input: lucidKey });
    expect(both.code).toBe(2);
    const help = await run(["link", "sign", "--help"]);
    expect(help.stdout).toMatch(/--encryption DIRECTION .*; default incoming;/);
  });

  it("refuses an unknown algorithm with exit 2", async () => {
    const result = await run(["link", "sign", lucidUrl, "--algorithm", "SHA3"], { key: lucidKey });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown hash algorithm");
  });
});

describe("sds link verify", () => {
  it("exits 0 for a valid signature and 1 with the reason on stderr otherwise", async () => {
    expect(await run(["link", "verify", lucidSigned], { key: lucidKey })).toMatchObject({ code: 0 });
    const tampered = await run(["link", "verify", lucidSigned.replace("vid=123", "vid=124")], { key: lucidKey });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain("mismatch");
    const missing = await run(["link", "verify", lucidUrl], { key: lucidKey });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("missing");
  });

  it("checks against the account's OutgoingEncryption when no key is given", async () => {
    const { signUrl } = await import("@sds/routing");
    const callback = signUrl("https://panel.example/v1/outcomes/complete?vq_token=t1", outgoingKey, {
      algorithm: "SHA1",
      parameter: "sig",
    });
    expect(await run(["link", "verify", callback])).toMatchObject({
      code: 0,
      stdout: "valid\n",
      stderr: "Checked with the account's OutgoingEncryption key.\n",
    });
    expect(await run(["link", "verify", callback.replace("t1", "t2")])).toMatchObject({ code: 1 });
  });

  it("verifies a link it just signed with --encryption incoming, and says which key a mismatch was checked with", async () => {
    const signed = (await run(["link", "sign", "https://survey.example/s/1?tid=abc"])).stdout.trim();
    const byDefault = await run(["link", "verify", signed]);
    expect(byDefault.code).toBe(1);
    expect(byDefault.stderr).toMatch(
      /^error: invalid signature \(\w+\) under the account's OutgoingEncryption key: .*needs --encryption incoming\.\n$/,
    );
    expect(await run(["link", "verify", signed, "--encryption", "incoming"])).toMatchObject({
      code: 0,
      stdout: "valid\n",
      stderr: "Checked with the account's IncomingEncryption key.\n",
    });
    const help = await run(["help", "link", "verify"]);
    expect(help.stdout).toMatch(/--encryption DIRECTION .*; default outgoing;/);
  });
});

describe("sds link calibrate", () => {
  it("names the scheme of a known-good URL, and exits 1 when nothing matches", async () => {
    const found = await run(["link", "calibrate", lucidSigned, "-o", "json"], { key: lucidKey });
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({
      matches: [
        { algorithm: "sha1", encoding: "base64url", includeSeparator: true, method: "hmac", parameter: "hash" },
      ],
    });
    expect(await run(["link", "calibrate", lucidSigned], { key: "not-the-right-key-0" })).toMatchObject({ code: 1 });
  });
});

describe("sds link entry", () => {
  it("prints an entry link that the marketplace admits, placeholders filled and signed", async () => {
    const survey = testbed.fake.api.listSurveys(1001).find((candidate) => /\[#vq_tid#\]/i.test(candidate.SurveyUrl));
    if (survey === undefined) throw new Error("the fake has no survey with [#vq_tid#]");
    const result = await run(["link", "entry", String(survey.SurveyId), "--token", "tok 1", "--uid", "r-9"]);
    expect(result.code).toBe(0);
    const link = result.stdout.trim();
    expect(link).not.toMatch(/\[#/);
    const marketplace = createFakeMarketplace({ api: testbed.fake.api });
    expect(await marketplace.enter(link, { outcome: "complete" })).toMatchObject({
      status: 302,
      token: "tok 1",
      uid: "r-9",
    });
    await marketplace.close();
  });

  it("fills [%RID%] with the token", async () => {
    const survey = testbed.fake.api.listSurveys(1001).find((candidate) => candidate.SurveyUrl.includes("[%RID%]"));
    if (survey === undefined) throw new Error("the fake has no survey with [%RID%]");
    const result = await run(["link", "entry", String(survey.SurveyId), "--token", "tok 1"]);
    expect(result.code).toBe(0);
    const link = result.stdout.trim();
    expect(link.startsWith(`${survey.SurveyUrl.replace("[%RID%]", "tok%201")}&hash=`)).toBe(true);
    expect(verifySignedUrl(link, incomingKey, { algorithm: "SHA256" })).toEqual({ valid: true });
  });

  it("warns on stderr and exits 1 when the SurveyUrl has a placeholder nothing fills or an unusable scheme", async () => {
    const [first, second] = testbed.fake.api.listSurveys(1001);
    if (first === undefined || second === undefined) throw new Error("the fake has too few surveys");
    testbed.fake.api.updateSurvey(first.SurveyId, {
      SurveyUrl: "https://survey.example.com/s/1?rid=[%RID%]&grp=[%GROUP%]",
    });
    testbed.fake.api.updateSurvey(second.SurveyId, { SurveyUrl: "javascript:alert(1)//[#vq_tid#]" });
    try {
      const unfilled = await run(["link", "entry", String(first.SurveyId), "--token", "t"]);
      expect(unfilled.code).toBe(1);
      expect(unfilled.stdout).toBe("");
      expect(unfilled.stderr).toBe(
        `warning: survey ${first.SurveyId}: the survey URL holds placeholders that nothing fills: [%GROUP%] (unfilled-placeholder)\n` +
          `error: survey ${first.SurveyId} has no usable entry link. Its SurveyUrl comes from the marketplace; report it there, or skip this survey.\n`,
      );
      const script = await run(["link", "entry", String(second.SurveyId), "--token", "t"]);
      expect(script.code).toBe(1);
      expect(script.stdout).toBe("");
      expect(script.stderr).toMatch(
        new RegExp(
          `^warning: survey ${second.SurveyId}: the survey URL is a javascript: URL; only http: and https: URLs become entry links \\(unsupported-scheme\\)\n`,
        ),
      );
    } finally {
      testbed.fake.api.updateSurvey(first.SurveyId, { SurveyUrl: first.SurveyUrl });
      testbed.fake.api.updateSurvey(second.SurveyId, { SurveyUrl: second.SurveyUrl });
    }
  });

  it("requires --token and answers 4 for a survey that is not live", async () => {
    expect(await run(["link", "entry", "1"])).toMatchObject({ code: 2 });
    expect(await run(["link", "entry", "999999999", "--token", "t"])).toMatchObject({ code: 4 });
  });
});

describe("the EncryptionKey", () => {
  it("never appears in any output of the link commands, --debug included", async () => {
    const callback = `https://panel.example/v1/outcomes/complete?vq_token=t1&sig=AAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    const survey = testbed.fake.api.listSurveys(1001)[0];
    if (survey === undefined) throw new Error("the fake has no survey");
    const results = await Promise.all([
      run(["link", "sign", "https://survey.example/s/1", "--debug"]),
      run(["link", "sign", "https://survey.example/s/1", "--debug", "-o", "json"], { key: "env-KEY-SECRET-0f9" }),
      run(["link", "sign", "https://survey.example/s/1", "--debug", "--key-stdin"], { input: "stdin-KEY-SECRET-4d2" }),
      run(["link", "verify", callback, "--debug"]),
      run(["link", "calibrate", callback, "--debug", "-o", "json"]),
      run(["link", "entry", String(survey.SurveyId), "--token", "t", "--debug", "-o", "json"]),
      run(["link", "sign", "https://survey.example/s/1", "--algorithm", "nope", "--debug"], {
        key: "env-KEY-SECRET-0f9",
      }),
    ]);
    for (const result of results) {
      const everything = result.stdout + result.stderr;
      for (const secret of [incomingKey, outgoingKey, "env-KEY-SECRET-0f9", "stdin-KEY-SECRET-4d2"])
        expect(everything).not.toContain(secret);
    }
    expect(results.map((result) => result.stderr).join("")).toContain("debug:");
  });
});

describe("sds account set-s2s --receiver", () => {
  it("points all four S2S URLs at the receiver's outcome routes with the token placeholder, and enables them", async () => {
    const result = await run(["account", "set-s2s", "--receiver", "https://outcomes.panel.example/"]);
    expect(result.code).toBe(0);
    expect(testbed.fake.api.getAccount(1001).S2SUrls).toEqual({
      Enabled: true,
      CompleteUrl: "https://outcomes.panel.example/v1/outcomes/complete?vq_token=[#vq_tid#]",
      TerminateUrl: "https://outcomes.panel.example/v1/outcomes/terminate?vq_token=[#vq_tid#]",
      OverQuotaUrl: "https://outcomes.panel.example/v1/outcomes/overquota?vq_token=[#vq_tid#]",
      SecurityTerminateUrl: "https://outcomes.panel.example/v1/outcomes/security?vq_token=[#vq_tid#]",
    });
    expect(
      await run(["account", "set-s2s", "--receiver", "https://x.example", "--complete", "https://y.example/c"]),
    ).toMatchObject({ code: 2 });
  });
});

describe("sds link start", () => {
  const secret = "cli-session-secret-0123456789abcdef";
  const start = (args: readonly string[], env: Readonly<Record<string, string>> = {}) =>
    runSds(["link", "start", ...args], testbed.home, { env: { SYNC_SESSION_SECRET: secret, ...env } });

  it("prints a start link sds-sync verifies: the query before &sig= signed with SYNC_SESSION_SECRET", async () => {
    const before = Math.floor(Date.now() / 1000);
    const printed = await start(
      ["--uid", "r 91", "--language-id", "9", "--device", "mobile", "--return-url", "https://panel.example/done"],
      { SDS_SYNC_URL: "https://sync.example/" },
    );
    expect(printed.code, printed.stderr).toBe(0);
    const link = printed.stdout.trim();
    expect(link).toMatch(
      /^https:\/\/sync\.example\/s\/start\?uid=r%2091&languageId=9&device=mobile&returnUrl=https%3A%2F%2Fpanel\.example%2Fdone&ts=\d+&sig=[0-9a-f]{64}$/,
    );
    const query = link.slice(link.indexOf("?") + 1);
    const signed = query.slice(0, query.lastIndexOf("&sig="));
    expect(query.slice(-64)).toBe(createHmac("sha256", secret).update(signed).digest("hex"));
    const { verifyStartLink } = await import("@sds/routing");
    const verdict = verifyStartLink(query, secret, new Date(), 600);
    expect(verdict).toMatchObject({ valid: true, link: { uid: "r 91", languageId: 9, device: "mobile" } });
    expect(verdict.valid && verdict.link.ts).toBeGreaterThanOrEqual(before);
    const json = await start(["--uid", "r-1", "--language-id", "3", "--sync-url", "http://127.0.0.1:9", "-o", "json"]);
    const document = JSON.parse(json.stdout) as { uid: string; languageId: number; url: string };
    expect(document).toMatchObject({ uid: "r-1", languageId: 3 });
    expect(document.url.startsWith("http://127.0.0.1:9/s/start?uid=r-1&languageId=3&ts=")).toBe(true);
  });

  it("refuses without a usable secret, base URL, uid or language (exit 2), never printing the secret", async () => {
    const cases: readonly [readonly string[], Readonly<Record<string, string>>, RegExp][] = [
      [
        ["--uid", "r", "--language-id", "3", "--sync-url", "https://s.example"],
        { SYNC_SESSION_SECRET: "" },
        /SYNC_SESSION_SECRET is not set/,
      ],
      [
        ["--uid", "r", "--language-id", "3", "--sync-url", "https://s.example"],
        { SYNC_SESSION_SECRET: "too-short-secret" },
        /shorter than 32/,
      ],
      [["--uid", "r", "--language-id", "3"], {}, /no sds-sync URL/],
      [["--language-id", "3", "--sync-url", "https://s.example"], {}, /--uid is required/],
      [["--uid", "r", "--sync-url", "https://s.example"], {}, /--language-id is required/],
      [["--uid", "r", "--language-id", "x", "--sync-url", "https://s.example"], {}, /--language-id must be an integer/],
      [
        ["--uid", "r", "--language-id", "3", "--device", "tv", "--sync-url", "https://s.example"],
        {},
        /--device must be one of/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const refused = await start(args, env);
      expect(refused.code, args.join(" ")).toBe(2);
      expect(refused.stderr).toMatch(message);
      expect(refused.stdout + refused.stderr).not.toContain("too-short-secret");
      expect(refused.stdout + refused.stderr).not.toContain(secret);
    }
  });
});
