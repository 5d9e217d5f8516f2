import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { operationIds } from "@sds/schemas";
import { describe, expect, it } from "vitest";
import { allSettings, configSecrets, describeFallback, loadConfig } from "./config.ts";
import { renderEnvExample } from "./env-example.ts";
import { renderHelp } from "./help.ts";
import { ConfigError } from "../common/errors.ts";

const minimal = { SDS_BASE_URL: "https://sds.example.com/api/v1", SDS_API_KEY: "key-123" };

function issuesOf(env: Record<string, string | undefined>): { variable: string; message: string }[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).issues];
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    expect(loadConfig(minimal)).toEqual({
      baseUrl: "https://sds.example.com/api/v1",
      apiKey: "key-123",
      database: { kind: "sqlite", path: "./data/sds.db" },
      intervalSeconds: 60,
      concurrency: 8,
      port: 8787,
      host: "127.0.0.1",
      apiToken: undefined,
      routerToken: undefined,
      metricsToken: undefined,
      logLevel: "info",
      retentionSeconds: 604_800,
      outcomeRetentionSeconds: 0,
      cycleTimeoutSeconds: 600,
      maxRecordBytes: 1_048_576,
      maxListBytes: 536_870_912,
      maxClosureShare: 0.25,
      closureConfirmCycles: 3,
      manualRunSpacingSeconds: 5,
      maxLongPolls: 1000,
      maxConnections: 256,
      maxConnectionsPerAddress: 64,
      outcomesHeadersTimeoutSeconds: 10,
      outcomesHost: "127.0.0.1",
      outcomesTokenParameter: "vq_token",
      entryPlaceholders: { RID: "token" },
      groupsRefreshSeconds: 600,
      statsRefreshSeconds: 600,
      missingGroups: "route",
      groupBlockingOutcomes: "all",
      yieldPriorStrength: 10,
      yieldCutoffEntries: 20,
      yieldCooldownSeconds: 21_600,
      natsSubjectPrefix: "sds",
      natsStream: "SDS",
      natsMaxAgeSeconds: 604_800,
      natsReplicas: 1,
      webhookTimeoutMs: 5000,
      webhookRetryHours: 24,
      webhookAllowPrivate: false,
      matcherPollMs: 1000,
      routingFactsReloadMs: 2000,
      windowAdvanceSeconds: 600,
      maxCpi: 100,
      hourlyCountsPruneSeconds: 600,
      idempotencyRetentionSeconds: 604_800,
      sessionMaxAttempts: 3,
      sessionTtlSeconds: 3600,
      questionSeconds: 8,
      profileTtlDays: 30,
      dropAfterLoi: 3,
      startLinkSeconds: 600,
      gateBots: true,
      gateConcurrent: true,
      deviceWindowDays: 30,
      gateGeo: false,
      speederFraction: 0.3,
      allowUnauthenticated: false,
      databaseStartTimeoutSeconds: 60,
      currency: "USD",
    });
  });

  it("reads the respondent loop's routing settings, and names the variable of a bad one", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_ENTRY_PLACEHOLDERS: "rid=token, PSID=uid",
      SYNC_REENTRY_AFTER: "terminate,overquota",
      SYNC_GROUP_BLOCKING_OUTCOMES: "complete,pending",
      SYNC_RECONTACT_STUDY_TYPES: "2, 9",
      SYNC_MAX_ENTRIES_PER_DAY: "25",
      SYNC_MISSING_GROUPS: "exclude",
    });
    expect(config).toMatchObject({
      entryPlaceholders: { RID: "token", PSID: "uid" },
      reentryAfter: ["terminate", "overquota"],
      groupBlockingOutcomes: ["complete", "pending"],
      recontactStudyTypes: [2, 9],
      maxEntriesPerDay: 25,
      missingGroups: "exclude",
    });
    const [reentry] = issuesOf({ ...minimal, SYNC_REENTRY_AFTER: "complete" });
    expect(reentry?.variable).toBe("SYNC_REENTRY_AFTER");
    expect(reentry?.message).toMatch(/terminate, overquota/);
    expect(issuesOf({ ...minimal, SYNC_ENTRY_PLACEHOLDERS: "RID" })[0]).toMatchObject({
      variable: "SYNC_ENTRY_PLACEHOLDERS",
    });
    expect(issuesOf({ ...minimal, SYNC_MISSING_GROUPS: "drop" })[0]).toMatchObject({ variable: "SYNC_MISSING_GROUPS" });
  });

  it("keeps entry links and outcomes forever by default, and takes 0 or a retention like SYNC_RETENTION_SECONDS", () => {
    expect(loadConfig({ ...minimal, SYNC_OUTCOME_RETENTION_SECONDS: "0" }).outcomeRetentionSeconds).toBe(0);
    expect(loadConfig({ ...minimal, SYNC_OUTCOME_RETENTION_SECONDS: "7776000" }).outcomeRetentionSeconds).toBe(
      7_776_000,
    );
    for (const raw of ["30", "-1", "1.5", "forever"]) {
      expect(() => loadConfig({ ...minimal, SYNC_OUTCOME_RETENTION_SECONDS: raw }), raw).toThrow(
        /SYNC_OUTCOME_RETENTION_SECONDS: must be/,
      );
    }
  });

  it("reads the outcome receiver's settings and refuses unusable ones", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_OUTCOMES_PORT: "9090",
      SYNC_OUTCOMES_HOST: "0.0.0.0",
      SYNC_OUTCOMES_PUBLIC_URL: "https://panel.example/sds/",
      SYNC_OUTCOMES_TOKEN_PARAM: "tid",
    });
    expect(config).toMatchObject({
      outcomesPort: 9090,
      outcomesHost: "0.0.0.0",
      outcomesPublicUrl: "https://panel.example/sds",
      outcomesTokenParameter: "tid",
    });
    expect(
      issuesOf({
        ...minimal,
        SYNC_OUTCOMES_PORT: "x",
        SYNC_OUTCOMES_PUBLIC_URL: "https://panel.example/?a=1",
        SYNC_OUTCOMES_TOKEN_PARAM: "a&b",
      }).map((issue) => issue.variable),
    ).toEqual(["SYNC_OUTCOMES_PORT", "SYNC_OUTCOMES_PUBLIC_URL", "SYNC_OUTCOMES_TOKEN_PARAM"]);
  });

  it("derives the cycle deadline from the interval unless SYNC_CYCLE_TIMEOUT is set", () => {
    expect(loadConfig({ ...minimal, SYNC_INTERVAL: "5" }).cycleTimeoutSeconds).toBe(300);
    expect(loadConfig({ ...minimal, SYNC_INTERVAL: "120" }).cycleTimeoutSeconds).toBe(1200);
    expect(loadConfig({ ...minimal, SYNC_INTERVAL: "86400" }).cycleTimeoutSeconds).toBe(3600);
    expect(loadConfig({ ...minimal, SYNC_CYCLE_TIMEOUT: "42.5" }).cycleTimeoutSeconds).toBe(42.5);
    expect(issuesOf({ ...minimal, SYNC_CYCLE_TIMEOUT: "0" })).toEqual([
      { variable: "SYNC_CYCLE_TIMEOUT", message: "must be between 1 and 86400, got 0" },
    ]);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      ...minimal,
      SDS_BASE_URL: "http://localhost:4010/api/v1/",
      DATABASE_URL: "postgres://sync:pw@db.internal:5432/inventory?schema=sds&sslmode=require",
      SYNC_INTERVAL: "30",
      SYNC_CONCURRENCY: "16",
      PORT: "9000",
      HOST: "0.0.0.0",
      SYNC_API_TOKEN: "0123456789abcdef0123",
      LOG_LEVEL: "DEBUG",
      SYNC_RETENTION_SECONDS: "86400",
      SYNC_MAX_LONG_POLLS: "50",
    });
    expect(config).toMatchObject({
      baseUrl: "http://localhost:4010/api/v1",
      intervalSeconds: 30,
      concurrency: 16,
      port: 9000,
      host: "0.0.0.0",
      apiToken: "0123456789abcdef0123",
      logLevel: "debug",
      retentionSeconds: 86_400,
      maxLongPolls: 50,
    });
    expect(config.database).toEqual({
      kind: "postgres",
      connectionString: "postgres://sync:pw@db.internal:5432/inventory?sslmode=require",
      schema: "sds",
    });
  });

  it("takes sqlite paths relative, absolute and in memory", () => {
    expect(loadConfig({ ...minimal, DATABASE_URL: "sqlite:/var/lib/sds/sds.db" }).database).toEqual({
      kind: "sqlite",
      path: "/var/lib/sds/sds.db",
    });
    expect(loadConfig({ ...minimal, DATABASE_URL: "sqlite:///var/lib/sds/sds.db" }).database).toEqual({
      kind: "sqlite",
      path: "/var/lib/sds/sds.db",
    });
    expect(loadConfig({ ...minimal, DATABASE_URL: "sqlite::memory:" }).database).toEqual({
      kind: "sqlite",
      path: ":memory:",
    });
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ ...minimal, PORT: "", SYNC_API_TOKEN: "  " })).toMatchObject({
      port: 8787,
      apiToken: undefined,
    });
  });

  it("names each missing required variable", () => {
    expect(issuesOf({}).map((issue) => issue.variable)).toEqual(["SDS_BASE_URL", "SDS_API_KEY"]);
  });

  it.each([
    ["SDS_BASE_URL", "not a url", /not an absolute URL/],
    // The client's own base-URL rule: these passed the config check, then failed in start with a stack trace.
    ["SDS_BASE_URL", "https://sds.example/api/v1/../admin", /"\." or "\.\." path segments/],
    ["SDS_BASE_URL", "https://sds.example/api/v1?x=1", /query or a fragment/],
    ["SDS_BASE_URL", "https://sds.example/api/v1#f", /query or a fragment/],
    ["SDS_BASE_URL", "ftp://sds.example.com/api/v1", /http or https/],
    ["SDS_BASE_URL", "https://user:pw@sds.example.com/api/v1", /credentials/],
    ["DATABASE_URL", "mysql://localhost/db", /sqlite: or postgres:\/\//],
    ["DATABASE_URL", "sqlite:", /file path/],
    ["DATABASE_URL", "postgres://localhost/db?schema=drop;table", /schema/],
    ["SYNC_INTERVAL", "soon", /must be a number/],
    ["SYNC_INTERVAL", "0", /between/],
    ["SYNC_INTERVAL", "-5", /must be a number/],
    ["SYNC_CONCURRENCY", "2.5", /integer/],
    ["SYNC_CONCURRENCY", "0", /between 1 and 64/],
    ["SYNC_CONCURRENCY", "65", /between 1 and 64/],
    ["PORT", "70000", /between 0 and 65535/],
    ["PORT", "http", /integer/],
    ["SYNC_API_TOKEN", "short", /at least 16/],
    ["SYNC_API_TOKEN", "has a space in the middle", /whitespace/],
    ["LOG_LEVEL", "loud", /one of fatal, error/],
    ["SYNC_RETENTION_SECONDS", "59", /between 60 and/],
    ["SYNC_RETENTION_SECONDS", "7d", /integer/],
    ["SYNC_MAX_LONG_POLLS", "0", /between 1 and 100000/],
    ["SYNC_MAX_LONG_POLLS", "100001", /between 1 and 100000/],
    ["SYNC_MAX_LONG_POLLS", "1e3", /must be a number|integer/],
    ["SYNC_MAX_LONG_POLLS", "-1", /integer/],
  ])("refuses %s=%j with a message naming it", (variable, value, message) => {
    const issues = issuesOf({ ...minimal, [variable]: value });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.variable).toBe(variable);
    expect(issues[0]?.message).toMatch(message);
  });

  it("reports every problem at once, and never echoes a secret or the database URL", () => {
    const env = {
      SDS_BASE_URL: "https://sds.example.com/api/v1",
      SDS_API_KEY: "key",
      SYNC_API_TOKEN: "tiny-secret",
      DATABASE_URL: "mongodb://admin:hunter2@db/x",
      PORT: "x",
    };
    const load = () => loadConfig(env);
    expect(issuesOf(env).map((issue) => issue.variable)).toEqual(["DATABASE_URL", "PORT", "SYNC_API_TOKEN"]);
    expect(load).toThrow(/SYNC_API_TOKEN:/);
    expect(load).not.toThrow(/tiny-secret|hunter2/);
  });
});

describe("SDS_OPERATION_PATHS", () => {
  it("reads operationId=/path pairs, whitespace around items allowed", () => {
    expect(
      loadConfig({
        ...minimal,
        SDS_OPERATION_PATHS:
          " getSurveyGroups=/groups/{surveyId} ,listRecontactRespondents = /recontacts/{surveyId}, getSurveyStats=/v2/surveys/{surveyId}/stats ",
      }).operationPaths,
    ).toEqual({
      getSurveyGroups: "/groups/{surveyId}",
      listRecontactRespondents: "/recontacts/{surveyId}",
      getSurveyStats: "/v2/surveys/{surveyId}/stats",
    });
  });

  it("overrides nothing when unset or empty", () => {
    expect(loadConfig(minimal).operationPaths).toBeUndefined();
    expect(loadConfig({ ...minimal, SDS_OPERATION_PATHS: "" }).operationPaths).toBeUndefined();
    expect(loadConfig({ ...minimal, SDS_OPERATION_PATHS: "  " }).operationPaths).toBeUndefined();
  });

  it.each([
    [
      "an unknown operation",
      "getGroups=/groups/{surveyId}",
      /no operation "getGroups"; known: getSupplierAccount, .*getSurveyGroups, listRecontactRespondents, .*got "getGroups=\/groups\/\{surveyId\}"$/,
    ],
    [
      "a path not starting with /",
      "getSurveyGroups=groups/{surveyId}",
      /getSurveyGroups must start with "\/", got "getSurveyGroups=groups\/\{surveyId\}"$/,
    ],
    [
      "a path with a query",
      "getSurveyGroups=/groups?survey={surveyId}",
      /must not carry a query \(\?\) or a fragment \(#\), got "getSurveyGroups=\/groups\?survey=\{surveyId\}"$/,
    ],
    [
      "a path with a fragment",
      "getSurveyGroups=/groups/{surveyId}#g",
      /must not carry a query \(\?\) or a fragment \(#\), got "getSurveyGroups=\/groups\/\{surveyId\}#g"$/,
    ],
    [
      "a path without the operation's placeholder",
      "getSurveyStats=/stats",
      /getSurveyStats must contain \{surveyId\}, each a whole segment, as \/survey-stats\/\{surveyId\} does, got "getSurveyStats=\/stats"$/,
    ],
    [
      "a path with another placeholder",
      "getSurveyGroups=/groups/{id}",
      /getSurveyGroups must contain \{surveyId\}.*got "getSurveyGroups=\/groups\/\{id\}"$/,
    ],
    [
      "a placeholder where none belongs",
      "listLanguages=/languages/{languageId}",
      /listLanguages must contain no placeholders, as \/collection\/languages does/,
    ],
    ["dot segments", "getSurveyGroups=/../v2/groups/{surveyId}", /"\." or "\.\." segments/],
    [
      "an operation named twice",
      "getSurveyGroups=/a/{surveyId}, getSurveyGroups=/b/{surveyId}",
      /names getSurveyGroups twice, got "getSurveyGroups=\/a\/\{surveyId\}" and "getSurveyGroups=\/b\/\{surveyId\}"$/,
    ],
    [
      "an item without =",
      "getSurveyGroups=/groups/{surveyId},/recontacts/{surveyId}",
      /must be a comma list of operationId=\/path, got "\/recontacts\/\{surveyId\}"$/,
    ],
    [
      "an item without a path",
      "getSurveyGroups=",
      /must be a comma list of operationId=\/path, got "getSurveyGroups="$/,
    ],
    [
      "an item without an operation",
      "=/groups/{surveyId}",
      /must be a comma list of operationId=\/path, got "=\/groups\/\{surveyId\}"$/,
    ],
  ])("refuses %s, naming the variable and the item", (_label, value, message) => {
    const issues = issuesOf({ ...minimal, SDS_OPERATION_PATHS: value });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.variable).toBe("SDS_OPERATION_PATHS");
    expect(issues[0]?.message).toMatch(message);
  });

  it("lists every operation id of the operations table when one is unknown", () => {
    const [issue] = issuesOf({ ...minimal, SDS_OPERATION_PATHS: "constructor=/x" });
    for (const id of operationIds) expect(issue?.message).toContain(id);
  });
});

describe("protected mode", () => {
  it("refuses a non-loopback HOST without SYNC_API_TOKEN unless SYNC_ALLOW_UNAUTHENTICATED=true", () => {
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "sync.internal"]) {
      const [issue] = issuesOf({ ...minimal, HOST: host });
      expect(issue?.variable).toBe("HOST");
      expect(issue?.message).toMatch(/SYNC_API_TOKEN.*SYNC_ALLOW_UNAUTHENTICATED=true/);
    }
    expect(loadConfig({ ...minimal, HOST: "0.0.0.0", SYNC_API_TOKEN: "0123456789abcdef0123" }).host).toBe("0.0.0.0");
    expect(loadConfig({ ...minimal, HOST: "0.0.0.0", SYNC_ALLOW_UNAUTHENTICATED: "true" }).allowUnauthenticated).toBe(
      true,
    );
    for (const host of ["127.0.0.1", "127.0.0.53", "localhost", "::1"])
      expect(loadConfig({ ...minimal, HOST: host }).host).toBe(host);
  });

  it("reads the allowed hosts and origins, * for any host", () => {
    expect(loadConfig({ ...minimal, SYNC_ALLOWED_HOSTS: "sync.internal, Sync.Example.COM." }).allowedHosts).toEqual([
      "sync.internal",
      "sync.example.com",
    ]);
    expect(loadConfig({ ...minimal, SYNC_ALLOWED_HOSTS: "*" }).allowedHosts).toBe("any");
    expect(
      loadConfig({ ...minimal, SYNC_ALLOWED_ORIGINS: "https://panel.example.com,http://localhost:3000" })
        .allowedOrigins,
    ).toEqual(["https://panel.example.com", "http://localhost:3000"]);
    expect(issuesOf({ ...minimal, SYNC_ALLOWED_HOSTS: "http://x.example" })[0]?.variable).toBe("SYNC_ALLOWED_HOSTS");
    expect(issuesOf({ ...minimal, SYNC_ALLOWED_ORIGINS: "https://panel.example.com/path" })[0]?.variable).toBe(
      "SYNC_ALLOWED_ORIGINS",
    );
  });
});

describe("the configuration table", () => {
  const readme = readFileSync(fileURLToPath(new URL("../../docs/reference.md", import.meta.url)), "utf8");
  /** The configuration table of docs/reference.md: variable -> default cell, without its markup. */
  const documented = new Map(
    [...readme.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map((match) => [
      match[1],
      (match[2] ?? "")
        .trim()
        .replace(/^\*\((.*)\)\*$/, "$1")
        .replaceAll("`", ""),
    ]),
  );

  it("is what docs/reference.md documents: every variable, with the same default, and nothing else", () => {
    const table = new Map(allSettings().map(({ setting }) => [setting.variable, describeFallback(setting.fallback)]));
    expect(documented).toEqual(table);
  });

  it("generates --help: every variable with its default and description", () => {
    const help = renderHelp("1.2.3");
    expect(help).toContain("sds-sync 1.2.3");
    for (const { setting } of allSettings()) {
      const entry = help.slice(help.indexOf(`  ${setting.variable}  (`));
      expect(entry).toMatch(
        new RegExp(
          `^  ${setting.variable}  \\((required|default: ${escapeRegExp(describeFallback(setting.fallback))})`,
        ),
      );
      expect(entry.split("\n\n")[0]?.replace(/\s+/g, " ")).toContain(setting.description.replace(/\s+/g, " "));
    }
  });

  it("takes SYNC_ROUTER_TOKEN only beside SYNC_API_TOKEN, and no two tokens alike", () => {
    const api = "api-token-0123456789";
    const router = "router-token-0123456789";
    expect(
      loadConfig({
        ...minimal,
        SYNC_API_TOKEN: api,
        SYNC_ROUTER_TOKEN: router,
        SYNC_METRICS_TOKEN: "metrics-0123456789abc",
      }),
    ).toMatchObject({ apiToken: api, routerToken: router, metricsToken: "metrics-0123456789abc" });
    expect(loadConfig({ ...minimal, SYNC_METRICS_TOKEN: "metrics-0123456789abc" }).metricsToken).toBe(
      "metrics-0123456789abc",
    );
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ ...minimal, ...env });
        return "";
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    };
    expect(problems({ SYNC_ROUTER_TOKEN: router })).toMatch(/SYNC_ROUTER_TOKEN.*needs SYNC_API_TOKEN/);
    const same = problems({ SYNC_API_TOKEN: api, SYNC_ROUTER_TOKEN: api });
    expect(same).toMatch(/SYNC_ROUTER_TOKEN.*must differ/);
    expect(same).not.toContain(api);
    expect(problems({ SYNC_API_TOKEN: api, SYNC_METRICS_TOKEN: api })).toMatch(/SYNC_METRICS_TOKEN.*must differ/);
  });

  it("lists the secrets of a configuration, including the database password, for the logger", () => {
    const config = loadConfig({
      ...minimal,
      SYNC_API_TOKEN: "0123456789abcdef0123",
      DATABASE_URL: "postgres://sync:pa%24%24word@db/x",
    });
    expect(configSecrets(config).sort()).toEqual(["0123456789abcdef0123", "key-123", "pa$$word"]);
    expect(configSecrets(loadConfig(minimal))).toEqual(["key-123"]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("deploy/sds-sync.env.example", () => {
  it("is generated from the configuration table: every setting, commented with its default (pnpm --filter @sds/sync env-example rewrites it)", () => {
    const file = readFileSync(fileURLToPath(new URL("../../deploy/sds-sync.env.example", import.meta.url)), "utf8");
    expect(file).toBe(renderEnvExample());
    const assigned = [...file.matchAll(/^#?([A-Z_]+)=(.*)$/gm)].map((match) => [match[1], match[2]]);
    expect(assigned.map(([variable]) => variable)).toEqual(allSettings().map(({ setting }) => setting.variable));
    for (const { setting } of allSettings()) {
      if (setting.fallback.kind === "default")
        expect(file).toContain(`\n#${setting.variable}=${setting.fallback.raw}\n`);
      if (setting.fallback.kind === "required") expect(file).toContain(`\n${setting.variable}=\n`);
    }
  });
});
