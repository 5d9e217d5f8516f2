import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/common/errors.ts";
import { configSecrets, describeConfig, loadConfig } from "../src/config/config.ts";
import { checkWebhookAddresses } from "../src/events/events.ts";
import { nonPublicAddressOf } from "../src/events/private-addresses.ts";
import { subjectMatches, parseSubjectFilter } from "../src/events/subject-filter.ts";

const minimal = { SDS_BASE_URL: "https://sds.example.com/api/v1", SDS_API_KEY: "key-123" };
const secret = `whsec_${Buffer.from("a test secret of thirty-two bytes").toString("base64")}`;

function issuesOf(env: Record<string, string>) {
  try {
    loadConfig({ ...minimal, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => `${issue.variable}: ${issue.message}`);
  }
  throw new Error("expected a ConfigError");
}

describe("the events' settings", () => {
  it("read NATS and webhook endpoints with their subject filters", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_NATS_URL: "nats://sync:s3cr%40t@nats.internal:4222",
      SYNC_WEBHOOK_URLS: "ledger=https://ledger.example/hooks|outcomes.>, warehouse=https://dw.example/in",
      SYNC_WEBHOOK_SECRET: secret,
    });
    expect(config.natsUrl?.host).toBe("nats.internal:4222");
    expect(config.webhookEndpoints?.map((endpoint) => [endpoint.name, endpoint.url.href])).toEqual([
      ["ledger", "https://ledger.example/hooks"],
      ["warehouse", "https://dw.example/in"],
    ]);
    expect(subjectMatches(config.webhookEndpoints?.[0]?.filter, "outcomes.complete")).toBe(true);
    expect(subjectMatches(config.webhookEndpoints?.[0]?.filter, "changes.closed")).toBe(false);
    expect(subjectMatches(config.webhookEndpoints?.[1]?.filter, "changes.closed")).toBe(true);
  });

  it("read plain URLs too, each named after its host (-2, -3 when hosts repeat), which the log shows", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_WEBHOOK_URLS:
        "https://hooks.example.com/a|outcomes.>, https://Hooks.Example.com/b, hooks.example.com=https://other.example/x, https://dw.example/in?key=a=b",
      SYNC_WEBHOOK_SECRET: secret,
    });
    expect(config.webhookEndpoints?.map((endpoint) => [endpoint.name, endpoint.url.href])).toEqual([
      ["hooks.example.com-2", "https://hooks.example.com/a"],
      ["hooks.example.com-3", "https://hooks.example.com/b"],
      ["hooks.example.com", "https://other.example/x"],
      ["dw.example", "https://dw.example/in?key=a=b"],
    ]);
    expect(subjectMatches(config.webhookEndpoints?.[0]?.filter, "changes.closed")).toBe(false);
    expect(subjectMatches(config.webhookEndpoints?.[1]?.filter, "changes.closed")).toBe(true);
    expect(JSON.stringify(describeConfig(config))).toContain('"hooks.example.com-2=https://hooks.example.com/a"');
  });

  it("never log a key in a webhook URL's query", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_WEBHOOK_URLS: "ledger=https://ledger.example/hooks?token=0123456789abcdef",
      SYNC_WEBHOOK_SECRET: secret,
    });
    expect(configSecrets(config)).toContain("0123456789abcdef");
    expect(JSON.stringify(describeConfig(config))).not.toContain("0123456789abcdef");
  });

  it("never log the NATS password or the webhook secret", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_NATS_URL: "nats://sync:s3cr%40t@nats.internal:4222",
      SYNC_WEBHOOK_URLS: "ledger=https://ledger.example/hooks",
      SYNC_WEBHOOK_SECRET: secret,
    });
    expect(configSecrets(config)).toEqual(expect.arrayContaining(["s3cr%40t", "s3cr@t", secret]));
    const logged = JSON.stringify(describeConfig(config));
    expect(logged).not.toContain("s3cr");
    expect(logged).not.toContain(secret);
    expect(logged).toContain("nats://sync:****@nats.internal:4222");
  });

  it.each([
    [
      { SYNC_WEBHOOK_URLS: "ledger=https://ledger.example/hooks" },
      "SYNC_WEBHOOK_SECRET: is required with SYNC_WEBHOOK_URLS",
    ],
    [
      { SYNC_WEBHOOK_URLS: "ledger=http://ledger.example/hooks", SYNC_WEBHOOK_SECRET: secret },
      "SYNC_WEBHOOK_URLS: ledger: must be https",
    ],
    [
      { SYNC_WEBHOOK_URLS: "ledger=https://10.0.0.5/hooks", SYNC_WEBHOOK_SECRET: secret },
      "SYNC_WEBHOOK_URLS: ledger: 10.0.0.5 is a private",
    ],
    [
      { SYNC_WEBHOOK_URLS: "ledger=https://localhost:9000/", SYNC_WEBHOOK_SECRET: secret },
      "SYNC_WEBHOOK_URLS: ledger: localhost is a private",
    ],
    [
      { SYNC_WEBHOOK_URLS: "Led ger=https://ledger.example/hooks", SYNC_WEBHOOK_SECRET: secret },
      "SYNC_WEBHOOK_URLS: must be a comma list of [NAME=]URL",
    ],
    [
      { SYNC_WEBHOOK_URLS: "ledger.example/hooks", SYNC_WEBHOOK_SECRET: secret },
      'SYNC_WEBHOOK_URLS: an endpoint: must be an https URL, got "ledger.example/hooks"',
    ],
    [
      { SYNC_WEBHOOK_URLS: "ledger=https://ledger.example/|outcomes.>.x", SYNC_WEBHOOK_SECRET: secret },
      'SYNC_WEBHOOK_URLS: ledger: "outcomes.>.x"',
    ],
    [
      { SYNC_WEBHOOK_URLS: "a=https://a.example/", SYNC_WEBHOOK_SECRET: "not-whsec" },
      "SYNC_WEBHOOK_SECRET: must be whsec_",
    ],
    [{ SYNC_NATS_URL: "http://sync:pw@nats:4222" }, "SYNC_NATS_URL: must be nats://"],
  ])("refuse %j, naming the variable", (env, message) => {
    const issues = issuesOf(env);
    expect(issues.join("\n")).toContain(message);
    expect(issues.join("\n")).not.toContain("pw@");
  });

  it("allow plain http and private addresses with SYNC_WEBHOOK_ALLOW_PRIVATE", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_WEBHOOK_URLS: "ledger=http://127.0.0.1:9000/hooks",
      SYNC_WEBHOOK_SECRET: secret,
      SYNC_WEBHOOK_ALLOW_PRIVATE: "1",
    });
    expect(config.webhookAllowPrivate).toBe(true);
  });

  it("match subjects the NATS way", () => {
    const filter = parseSubjectFilter(["outcomes.*", "changes.closed"], "test");
    expect(subjectMatches(filter, "outcomes.complete")).toBe(true);
    expect(subjectMatches(filter, "outcomes")).toBe(false);
    expect(subjectMatches(filter, "changes.closed")).toBe(true);
    expect(subjectMatches(filter, "changes.opened")).toBe(false);
    expect(subjectMatches(parseSubjectFilter([">"], "test"), "changes.opened")).toBe(true);
  });
});

/** This machine's name, when it resolves to a private or loopback address (as /etc/hosts usually has it). */
const privateHost = (await nonPublicAddressOf(hostname())) === undefined ? undefined : hostname();

describe.skipIf(privateHost === undefined)("checkWebhookAddresses", () => {
  it("refuses at start a host name that resolves to a private or loopback address, naming the setting", async () => {
    const host = privateHost ?? "";
    const config = { webhookEndpoints: [{ name: "ledger", url: new URL(`https://${host}/hooks`) }] };
    await expect(checkWebhookAddresses(config)).rejects.toThrow(/SYNC_WEBHOOK_URLS: ledger: .* private or loopback/);
    await expect(checkWebhookAddresses({ ...config, webhookAllowPrivate: true })).resolves.toBeUndefined();
  });
});
