import { isConfigurationError, parseBaseUrl as clientParseBaseUrl } from "@sds/client";
import { ConfigError, type ConfigIssue } from "../common/errors.ts";
import { logLevels, type LogLevel } from "../common/logger.ts";
import { SettingProblem, booleanValue, numberValue, oneOf, originList } from "../common/setting-parsers.ts";
import type { DatabaseConfig } from "../database/database-config.ts";
import { DEFAULT_MAX_RECORD_BYTES } from "../cycle/record-size-limits.ts";
import { eventConfigRules, eventSettings, type EventsConfig } from "../events/event-settings.ts";
import { DEFAULT_MAX_LONG_POLLS } from "../feed/change-notifier.ts";
import { connectionSettings, type ConnectionConfig } from "../http/connection-settings.ts";
import { isLoopbackHost } from "../http/request-guard.ts";
import { loopSettings, type LoopConfig } from "../loop/loop-settings.ts";
import { parseTrustedProxies } from "../http/client-address.ts";
import { pageSettings, type PageConfig } from "../page/page-settings.ts";
import { sessionSettings, type SessionConfig } from "../session/session-settings.ts";
import { gateSettings, type GateConfig } from "../gate/gate-settings.ts";
import { DEFAULT_MAX_LIST_BYTES } from "../upstream/list-size-limit.ts";
import { operationPathsSetting, type OperationPaths } from "../upstream/operation-paths.ts";

export type { DatabaseConfig };

/*
 * The configuration of sds-sync is one table, `settings`: each row names its environment
 * variable, its parser, its default, its description and whether it is secret. The loader, the
 * secrets the logger scrubs, the configuration the logger prints and `sds-sync --help` are all
 * generated from it (a test checks the table of docs/reference.md against it too), so none can drift.
 *
 * To add a setting: a field in `SyncConfig`, a row in `settings` (TypeScript insists on both),
 * and a row in the table of docs/reference.md.
 */

/** The whole configuration of sds-sync, read once at start from the environment (see {@link settings}). */
export interface SyncConfig extends LoopConfig, EventsConfig, SessionConfig, PageConfig, GateConfig, ConnectionConfig {
  /** `SDS_BASE_URL`: the upstream base URL, ending in `/api/v1`. */
  readonly baseUrl: string;
  /** `SDS_API_KEY`: sent as `EQ-PARTNER-ACCESS-KEY`. Secret. */
  readonly apiKey: string;
  /** `SDS_OPERATION_PATHS`: paths that replace those of the operations table, by operation id. @default none */
  readonly operationPaths?: OperationPaths | undefined;
  /** `DATABASE_URL`, parsed. */
  readonly database: DatabaseConfig;
  /** `SYNC_INTERVAL` in seconds. @default 60 */
  readonly intervalSeconds: number;
  /** `SYNC_CONCURRENCY`: per-survey upstream requests in flight at once. @default 8 */
  readonly concurrency: number;
  /** `PORT`. @default 8787 */
  readonly port: number;
  /** `HOST`. @default "127.0.0.1" */
  readonly host: string;
  /** `SYNC_API_TOKEN`: bearer token every `/v1` route requires when set (it opens every route). Secret. */
  readonly apiToken: string | undefined;
  /** `SYNC_ROUTER_TOKEN`: bearer token that opens the router's routes only (match, entry links, sessions). Secret. */
  readonly routerToken?: string | undefined;
  /** `SYNC_METRICS_TOKEN`: bearer token `/metrics` requires when set. Secret. */
  readonly metricsToken?: string | undefined;
  /** `LOG_LEVEL`. @default "info" */
  readonly logLevel: LogLevel;
  /** `SYNC_RETENTION_SECONDS`: feed entries, run records and resolved quarantine older than this are pruned. @default 604800 (7 days) */
  readonly retentionSeconds: number;
  /**
   * `SYNC_OUTCOME_RETENTION_SECONDS`: entry links and outcomes older than this are pruned; 0 keeps
   * them forever (business records). @default 0
   */
  readonly outcomeRetentionSeconds?: number | undefined;
  /**
   * `SYNC_CYCLE_TIMEOUT` in seconds: a cycle still running after this long fails (rolled back,
   * recorded as failed) and the next one runs on schedule. @default {@link defaultCycleTimeoutSeconds} of the interval
   */
  readonly cycleTimeoutSeconds: number;
  /** `SYNC_MAX_RECORD_BYTES`: a survey, qualification or quota record larger than this is quarantined. @default 1048576 */
  readonly maxRecordBytes: number;
  /** `SYNC_MAX_LIST_BYTES`: a Get Surveys body larger than this fails the cycle. @default 536870912 */
  readonly maxListBytes: number;
  /** `SYNC_MAX_CLOSURE_SHARE`: share of the live surveys one cycle may close before the guard holds the closures. @default 0.25 */
  readonly maxClosureShare: number;
  /** `SYNC_CLOSURE_CONFIRM_CYCLES`: consecutive cycles held surveys must stay absent before they close. @default 3 */
  readonly closureConfirmCycles: number;
  /** `SYNC_MANUAL_RUN_SPACING`: shortest time between the starts of two manual cycles, in seconds. @default 5 */
  readonly manualRunSpacingSeconds: number;
  /** `SYNC_MAX_LONG_POLLS`: readers that may wait (`wait=`) on each feed at once; more get 503. @default 1000 */
  readonly maxLongPolls?: number | undefined;
  /** `SYNC_OUTCOMES_HOST`: interface of the receiver's own listener. @default HOST */
  readonly outcomesHost?: string | undefined;
  /** `SYNC_ALLOWED_HOSTS`: Host names the API answers besides loopback names and `HOST`; `"any"` turns the check off. @default [] */
  readonly allowedHosts?: readonly string[] | "any" | undefined;
  /** `SYNC_ALLOWED_ORIGINS`: browser origins allowed to call mutating routes besides the service's own. @default [] */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** `SYNC_TRUSTED_PROXIES`: peers whose X-Forwarded-For names the client. @default [] */
  readonly trustedProxies?: readonly string[] | undefined;
  /** `SYNC_ALLOW_UNAUTHENTICATED`: start on a non-loopback `HOST` without `SYNC_API_TOKEN`. @default false */
  readonly allowUnauthenticated?: boolean | undefined;
  /**
   * `SYNC_DATABASE_START_TIMEOUT_SECONDS`: how long start keeps retrying a database it cannot
   * reach before it exits 75; 0 tries once. @default 60
   */
  readonly databaseStartTimeoutSeconds?: number | undefined;
  /** `SYNC_CURRENCY`: the ISO 4217 code of the surveys' CPI, which the status page shows earnings in. @default "USD" */
  readonly currency?: string | undefined;
}

/** Bounds of the default `SYNC_CYCLE_TIMEOUT`, in seconds: generous enough for a first sync, short enough to notice a trickle. */
const CYCLE_TIMEOUT_DEFAULT_BOUNDS = { min: 300, max: 3600 } as const;

/**
 * The default `SYNC_CYCLE_TIMEOUT` for an interval: ten intervals, at least 5 minutes (a first
 * sync of a large inventory takes minutes) and at most an hour.
 *
 * @example
 * ```ts
 * defaultCycleTimeoutSeconds(60); // 600
 * defaultCycleTimeoutSeconds(5); // 300
 * ```
 */
function defaultCycleTimeoutSeconds(intervalSeconds: number): number {
  return Math.min(CYCLE_TIMEOUT_DEFAULT_BOUNDS.max, Math.max(CYCLE_TIMEOUT_DEFAULT_BOUNDS.min, 10 * intervalSeconds));
}

/** Bounds of `SYNC_RETENTION_SECONDS`: a minute (tests, demos) to ten years. */
const RETENTION_BOUNDS = { min: 60, max: 10 * 365 * 24 * 3600, integer: true } as const;

/** How a setting gets its value when its variable is unset (or empty). */
export type SettingFallback<T> =
  /** The start fails; `hint` says what the value is. */
  | { readonly kind: "required"; readonly hint: string }
  /** `raw` goes through the setting's parser, exactly like a value from the environment. */
  | { readonly kind: "default"; readonly raw: string }
  /** The value is `undefined` (the type of the setting allows it). */
  | { readonly kind: "unset" }
  /**
   * Computed from the other settings once they are all read; `text` says how, for `--help`. A
   * derived setting may read another derived setting only when that one comes earlier in the table.
   */
  | { readonly kind: "derived"; readonly text: string; readonly derive: (config: SyncConfig) => T };

/** One row of the configuration table. */
export interface Setting<T> {
  /** The environment variable, such as `SYNC_INTERVAL`. */
  readonly variable: string;
  /** One or two sentences for `--help` and docs/reference.md: what it is, its unit and bounds. */
  readonly description: string;
  /** Turns the (trimmed, non-empty) value into the setting; throws `SettingProblem` with a message. */
  readonly parse: (raw: string) => T;
  readonly fallback: SettingFallback<T>;
  /** Never printed nor logged: its value is scrubbed from every log line, and problems never echo it. */
  readonly secret?: boolean;
  /** Secret parts of a value that is not secret as a whole (the password in `DATABASE_URL`). */
  readonly secretsIn?: (value: T) => readonly string[];
  /** The value as safe to log. @default the value itself (secrets: whether they are set) */
  readonly describe?: (value: T) => unknown;
}

/** Upper bound of `SYNC_CONCURRENCY`: beyond it a supplier risks the upstream's unknown rate limits. */
const MAX_CONCURRENCY = 64;
/** Shortest `SYNC_API_TOKEN` accepted: a guessable token is worse than none because it looks safe. */
const MIN_API_TOKEN_LENGTH = 16;

/** Every setting of sds-sync, in the order `--help` lists them. */
const settings = {
  baseUrl: {
    variable: "SDS_BASE_URL",
    description: "Base URL of the Supplier Data Service, ending in /api/v1 (http or https, no credentials in it).",
    parse: parseBaseUrl,
    fallback: { kind: "required", hint: "the service's base URL, ending in /api/v1" },
  },
  apiKey: {
    variable: "SDS_API_KEY",
    description: "API key, sent as EQ-PARTNER-ACCESS-KEY. Never logged.",
    parse: (raw) => raw,
    fallback: { kind: "required", hint: "the key sent as EQ-PARTNER-ACCESS-KEY" },
    secret: true,
  },
  operationPaths: operationPathsSetting,
  database: {
    variable: "DATABASE_URL",
    description:
      "sqlite:PATH for the embedded store (the directory is created; sqlite::memory: for a throwaway store), or postgres://user:password@host:5432/db (also postgresql://). Add ?schema=NAME to keep the tables in a schema other than public (created when missing). The password is never logged.",
    parse: parseDatabaseUrl,
    fallback: { kind: "default", raw: "sqlite:./data/sds.db" },
    secretsIn: databasePassword,
    describe: describeDatabase,
  },
  intervalSeconds: {
    variable: "SYNC_INTERVAL",
    description: "Seconds between cycles (0.1 to 86400, decimals allowed).",
    parse: numberValue({ min: 0.1, max: 86_400, integer: false }),
    fallback: { kind: "default", raw: "60" },
  },
  concurrency: {
    variable: "SYNC_CONCURRENCY",
    description: `Per-survey upstream requests in flight at once (1 to ${MAX_CONCURRENCY}).`,
    parse: numberValue({ min: 1, max: MAX_CONCURRENCY, integer: true }),
    fallback: { kind: "default", raw: "8" },
  },
  port: {
    variable: "PORT",
    description: "Port of the HTTP API (0 picks a free one).",
    parse: numberValue({ min: 0, max: 65_535, integer: true }),
    fallback: { kind: "default", raw: "8787" },
  },
  host: {
    variable: "HOST",
    description: "Interface of the HTTP API; 0.0.0.0 to listen on every interface.",
    parse: (raw) => raw,
    fallback: { kind: "default", raw: "127.0.0.1" },
  },
  apiToken: {
    variable: "SYNC_API_TOKEN",
    description: `When set (${MIN_API_TOKEN_LENGTH} characters or more, no whitespace), every /v1 route requires Authorization: Bearer <token>, and this token opens every route (the operator's). /healthz, /readyz, /openapi.json and the status page (/, which asks for the token itself) stay open; /metrics too unless SYNC_METRICS_TOKEN is set. Unset, anyone who can reach the API can call every route: /readyz warns.`,
    parse: parseApiToken,
    fallback: { kind: "unset" },
    secret: true,
  },
  routerToken: {
    variable: "SYNC_ROUTER_TOKEN",
    description: `A second bearer token (${MIN_API_TOKEN_LENGTH} characters or more, no whitespace, unlike the others) for a respondent-facing router: it opens POST /v1/match, POST /v1/entry-links and the sessions (POST /v1/sessions, GET /v1/sessions/{id}, its answers and its end), and every other route answers it 403 insufficient_scope. Needs SYNC_API_TOKEN.`,
    parse: parseApiToken,
    fallback: { kind: "unset" },
    secret: true,
  },
  metricsToken: {
    variable: "SYNC_METRICS_TOKEN",
    description: `When set (${MIN_API_TOKEN_LENGTH} characters or more, no whitespace, unlike the others), GET /metrics requires Authorization: Bearer <token> (Prometheus' authorization setting; SYNC_API_TOKEN is taken too) and the token opens nothing else. Unset: /metrics is open.`,
    parse: parseApiToken,
    fallback: { kind: "unset" },
    secret: true,
  },
  logLevel: {
    variable: "LOG_LEVEL",
    description: `${logLevels.join(", ")}.`,
    parse: (raw) => oneOf(logLevels, raw.toLowerCase(), raw),
    fallback: { kind: "default", raw: "info" },
  },
  retentionSeconds: {
    variable: "SYNC_RETENTION_SECONDS",
    description: `Change-feed entries, run records and resolved quarantine older than this are pruned (${RETENTION_BOUNDS.min} to ${RETENTION_BOUNDS.max}). See Retention in docs/reference.md.`,
    parse: numberValue(RETENTION_BOUNDS),
    fallback: { kind: "default", raw: String(7 * 24 * 3600) },
  },
  outcomeRetentionSeconds: {
    variable: "SYNC_OUTCOME_RETENTION_SECONDS",
    description: `Entry links and outcomes (the respondent loop's records) older than this are pruned (0, or ${RETENTION_BOUNDS.min} to ${RETENTION_BOUNDS.max}); 0 keeps them forever, since they are business records. See Retention in docs/reference.md.`,
    parse: (raw) => {
      const seconds = numberValue({ ...RETENTION_BOUNDS, min: 0 })(raw);
      if (seconds !== 0 && seconds < RETENTION_BOUNDS.min)
        throw new SettingProblem(
          `must be 0 (keep forever) or between ${RETENTION_BOUNDS.min} and ${RETENTION_BOUNDS.max}, got ${raw}`,
        );
      return seconds;
    },
    fallback: { kind: "default", raw: "0" },
  },
  cycleTimeoutSeconds: {
    variable: "SYNC_CYCLE_TIMEOUT",
    description:
      "Seconds a whole cycle may take (1 to 86400, decimals allowed). Past it the cycle fails: nothing of it is committed, the run is recorded as failed with a deadline: error, and the next cycle follows the usual backoff. Size it above your slowest first sync.",
    parse: numberValue({ min: 1, max: 86_400, integer: false }),
    fallback: {
      kind: "derived",
      text: `10 × SYNC_INTERVAL, at least ${CYCLE_TIMEOUT_DEFAULT_BOUNDS.min}, at most ${CYCLE_TIMEOUT_DEFAULT_BOUNDS.max}`,
      derive: (config) => defaultCycleTimeoutSeconds(config.intervalSeconds),
    },
  },
  maxRecordBytes: {
    variable: "SYNC_MAX_RECORD_BYTES",
    description:
      "Largest survey, qualification or quota record, in bytes of its JSON (1024 to 268435456; 1 MiB by default). A larger survey is quarantined (stored as its size and its first kilobyte) and keeps its last good version; larger qualifications or quotas are quarantined and the survey is marked for refetch.",
    parse: numberValue({ min: 1024, max: 268_435_456, integer: true }),
    fallback: { kind: "default", raw: String(DEFAULT_MAX_RECORD_BYTES) },
  },
  maxListBytes: {
    variable: "SYNC_MAX_LIST_BYTES",
    description:
      "Largest Get Surveys body, in bytes (1024 to 17179869184; 512 MiB by default): past it (by Content-Length, or as the bytes arrive) the cycle fails and nothing of it is kept.",
    parse: numberValue({ min: 1024, max: 17_179_869_184, integer: true }),
    fallback: { kind: "default", raw: String(DEFAULT_MAX_LIST_BYTES) },
  },
  maxClosureShare: {
    variable: "SYNC_MAX_CLOSURE_SHARE",
    description:
      "Mass-closure guard: the share (0 to 1) of the live surveys one cycle may close. A cycle whose list leaves more of them absent holds those closures (the surveys stay live) until they stay absent for SYNC_CLOSURE_CONFIRM_CYCLES cycles or an operator confirms; 1 turns the guard off.",
    parse: numberValue({ min: 0, max: 1, integer: false }),
    // A quarter of the inventory vanishing in one cycle looks like a glitch, not like churn.
    fallback: { kind: "default", raw: "0.25" },
  },
  closureConfirmCycles: {
    variable: "SYNC_CLOSURE_CONFIRM_CYCLES",
    description:
      "Consecutive cycles (1 to 1000) that held surveys must stay absent before they close, unless an operator confirms sooner (POST /v1/sync/closures/confirm).",
    parse: numberValue({ min: 1, max: 1000, integer: true }),
    fallback: { kind: "default", raw: "3" },
  },
  manualRunSpacingSeconds: {
    variable: "SYNC_MANUAL_RUN_SPACING",
    description:
      "Shortest time, in seconds (0 to 3600, decimals allowed), between the starts of two manual cycles (POST /v1/sync/run). Callers meanwhile join the cycle running or already asked for, or get 429 with Retry-After; none starts while an upstream 429 Retry-After is pending. 0 leaves only the coalescing (for tests).",
    parse: numberValue({ min: 0, max: 3600, integer: false }),
    fallback: { kind: "default", raw: "5" },
  },
  maxLongPolls: {
    variable: "SYNC_MAX_LONG_POLLS",
    description:
      "Readers that may wait at once on each feed (GET /v1/changes and GET /v1/outcomes with wait=), 1 to 100000. Each holds a connection until news or its wait ends; one more gets 503 too_many_long_polls with Retry-After.",
    parse: numberValue({ min: 1, max: 100_000, integer: true }),
    fallback: { kind: "default", raw: String(DEFAULT_MAX_LONG_POLLS) },
  },
  ...connectionSettings,

  outcomesHost: {
    variable: "SYNC_OUTCOMES_HOST",
    description: "Interface of the receiver's own listener.",
    parse: (raw) => raw,
    fallback: { kind: "derived", text: "HOST", derive: (config) => config.host },
  },

  allowedHosts: {
    variable: "SYNC_ALLOWED_HOSTS",
    description:
      "Comma list of host names the API answers to (the Host header, port ignored) besides loopback names and HOST, such as the name a proxy or a Kubernetes Service reaches it by; * answers any (only behind something that checks Host). Other hosts get 403 on the /v1 routes: a web page cannot read the API through DNS rebinding.",
    parse: (raw) => (raw === "*" ? "any" : parseHostList(raw)),
    fallback: { kind: "unset" },
  },
  allowedOrigins: {
    variable: "SYNC_ALLOWED_ORIGINS",
    description:
      "Comma list of browser origins (scheme://host[:port]) allowed to call the mutating routes (POST) besides the service's own; a request from any other Origin is refused with 403, so a web page cannot trigger runs.",
    parse: originList,
    fallback: { kind: "unset" },
  },
  trustedProxies: {
    variable: "SYNC_TRUSTED_PROXIES",
    description:
      "Comma list of addresses and CIDR ranges (or loopback, linklocal, uniquelocal) of your reverse proxies: from them, the client address the quality gate judges is the nearest untrusted one in X-Forwarded-For; from anyone else the header is ignored and the socket's address counts.",
    parse: parseTrustedProxies,
    fallback: { kind: "unset" },
  },
  ...loopSettings,
  ...eventSettings,
  ...sessionSettings,
  ...pageSettings,
  ...gateSettings,
  allowUnauthenticated: {
    variable: "SYNC_ALLOW_UNAUTHENTICATED",
    description:
      "true to start on a non-loopback HOST (0.0.0.0, a LAN address) without SYNC_API_TOKEN, serving the API to anyone who can reach it. Without it sds-sync refuses to start that way.",
    parse: booleanValue,
    fallback: { kind: "default", raw: "false" },
  },
  databaseStartTimeoutSeconds: {
    variable: "SYNC_DATABASE_START_TIMEOUT_SECONDS",
    description:
      "Seconds (0 to 3600) start keeps trying a database it cannot reach (connection refused, unknown host, a server still starting), with backoff and a log line per attempt, before it exits 75; 0 tries once. A database that answers with an error (a wrong password, a schema newer than this build) fails at once.",
    parse: numberValue({ min: 0, max: 3600, integer: false }),
    fallback: { kind: "default", raw: "60" },
  },
  currency: {
    variable: "SYNC_CURRENCY",
    description:
      "ISO 4217 code of the currency of the surveys' CPI (three letters, such as USD, EUR, GBP): the status page shows earnings with its symbol.",
    parse: parseCurrency,
    fallback: { kind: "default", raw: "USD" },
  },
} as const satisfies { readonly [Key in keyof SyncConfig]: Setting<SyncConfig[Key]> };

/** A rule across settings: returns a problem (naming one variable) or nothing. */
type ConfigRule = (config: SyncConfig) => ConfigIssue | undefined;

/** Rules that no single setting can check alone, applied once every setting is valid. */
const configRules: readonly ConfigRule[] = [
  (config) =>
    isLoopbackHost(config.host) || config.apiToken !== undefined || config.allowUnauthenticated === true
      ? undefined
      : {
          variable: "HOST",
          message: `${config.host} is reachable from other machines and SYNC_API_TOKEN is not set: set SYNC_API_TOKEN (every /v1 route then needs it), or SYNC_ALLOW_UNAUTHENTICATED=true to serve the API to anyone who can reach it`,
        },
  (config) =>
    config.routerToken === undefined || config.apiToken !== undefined
      ? undefined
      : {
          variable: "SYNC_ROUTER_TOKEN",
          message:
            "needs SYNC_API_TOKEN: without it every route is open, so a router token would guard nothing (set SYNC_API_TOKEN for the operator)",
        },
  (config) => {
    const tokens = [config.apiToken, config.routerToken, config.metricsToken].filter((token) => token !== undefined);
    return new Set(tokens).size === tokens.length
      ? undefined
      : {
          variable:
            config.routerToken !== undefined && config.routerToken === config.apiToken
              ? "SYNC_ROUTER_TOKEN"
              : "SYNC_METRICS_TOKEN",
          message:
            "must differ from the other tokens (SYNC_API_TOKEN, SYNC_ROUTER_TOKEN, SYNC_METRICS_TOKEN): a shared token has the widest scope of them (the values are not shown)",
        };
  },
  ...eventConfigRules,
];

/** Whether a host name or address only ever reaches this machine (`localhost`, 127.0.0.0/8, `::1`). */

function parseHostList(raw: string): string[] {
  const hosts = raw
    .split(",")
    .map((host) => host.trim().toLowerCase().replace(/\.$/, ""))
    .filter((host) => host !== "");
  for (const host of hosts)
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+|[0-9a-f:]+)$/.test(host))
      throw new SettingProblem(`must be a comma list of host names (no scheme, no port), got ${JSON.stringify(host)}`);
  return hosts;
}

type Environment = Readonly<Record<string, string | undefined>>;
type SettingKey = keyof SyncConfig;
const settingKeys = Object.keys(settings) as SettingKey[];

/** A row of the table without its value type, for code that walks every row. */
export function settingOf(key: SettingKey): Setting<unknown> {
  return settings[key] as Setting<unknown>;
}

/** Every row of the table, in order. */
export function allSettings(): { readonly key: SettingKey; readonly setting: Setting<unknown> }[] {
  return settingKeys.map((key) => ({ key, setting: settingOf(key) }));
}

/**
 * Reads and validates the configuration. Every problem is collected, so one start reports them
 * all; each names its variable. Empty values count as unset.
 *
 * @throws ConfigError when a required variable is missing or any value is invalid.
 * @example
 * ```ts
 * const config = loadConfig(process.env);
 * ```
 */
export function loadConfig(env: Environment): SyncConfig {
  const { values, derived } = readSettings(env, settingKeys);
  const config = Object.fromEntries(values) as Record<SettingKey, unknown>;
  for (const key of derived) {
    const fallback = settingOf(key).fallback;
    if (fallback.kind === "derived") config[key] = fallback.derive(config as unknown as SyncConfig);
  }
  const complete = config as unknown as SyncConfig;
  const broken = configRules.map((rule) => rule(complete)).filter((issue) => issue !== undefined);
  if (broken.length > 0) throw new ConfigError(broken);
  return complete;
}

/**
 * Reads and validates some settings only, for a command that needs no more (`sds-sync migrate`
 * reads the database's settings, not the upstream's). A derived setting is left out.
 *
 * @throws ConfigError when one of them is missing or invalid, naming each.
 */
export function loadSettings<Key extends SettingKey>(env: Environment, keys: readonly Key[]): Pick<SyncConfig, Key> {
  return Object.fromEntries(readSettings(env, keys).values) as Pick<SyncConfig, Key>;
}

/** Reads `keys` from the environment: their values, the derived ones left to compute; every problem at once. */
function readSettings(
  env: Environment,
  keys: readonly SettingKey[],
): { values: Map<SettingKey, unknown>; derived: SettingKey[] } {
  const issues: ConfigIssue[] = [];
  const values = new Map<SettingKey, unknown>();
  const derived: SettingKey[] = [];
  for (const key of keys) {
    const setting = settingOf(key);
    const raw = env[setting.variable]?.trim();
    const fallback = setting.fallback;
    if (raw === undefined || raw === "") {
      if (fallback.kind === "required")
        issues.push({ variable: setting.variable, message: `is required (${fallback.hint})` });
      else if (fallback.kind === "unset") values.set(key, undefined);
      else if (fallback.kind === "derived") derived.push(key);
      else values.set(key, setting.parse(fallback.raw));
      continue;
    }
    try {
      values.set(key, setting.parse(raw));
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      issues.push({ variable: setting.variable, message: error.message });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return { values, derived };
}

/** The secret values of a configuration (whole secret settings and secret parts), for the logger to scrub. */
export function configSecrets(config: Partial<SyncConfig>): string[] {
  return allSettings().flatMap(({ key, setting }) => {
    const value = config[key];
    if (value === undefined) return [];
    if (setting.secret) return typeof value === "string" ? [value] : [];
    return setting.secretsIn ? [...setting.secretsIn(value)] : [];
  });
}

/** The configuration as safe to log: secrets only as set or not, the database URL without its password. */
export function describeConfig(config: SyncConfig): Record<string, unknown> {
  return Object.fromEntries(
    allSettings().map(({ key, setting }) => {
      const value = config[key];
      if (setting.secret) return [`${key}Set`, value !== undefined];
      return [key, setting.describe ? setting.describe(value) : value];
    }),
  );
}

/** How a setting's default reads in `--help` and docs/reference.md: `required`, `unset`, the raw default, or how it is derived. */
export function describeFallback(fallback: SettingFallback<unknown>): string {
  switch (fallback.kind) {
    case "required":
      return "required";
    case "unset":
      return "unset";
    case "default":
      return fallback.raw;
    case "derived":
      return fallback.text;
  }
}

/**
 * `SDS_BASE_URL`, checked by `@sds/client`'s own `parseBaseUrl` (the one base-URL rule: no
 * credentials, query, fragment or dot segments), so a URL the client would refuse at start is
 * refused here, naming the variable, before anything starts.
 */
function parseBaseUrl(value: string): string {
  try {
    clientParseBaseUrl(value);
    return value.trim().replace(/\/+$/, "");
  } catch (error) {
    if (!isConfigurationError(error)) throw error;
    throw new SettingProblem(error.message.replace(/^Invalid base URL: /, "").replace(/\.$/, ""));
  }
}

function parseDatabaseUrl(value: string): DatabaseConfig {
  if (value.startsWith("sqlite:")) {
    const path = value.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (path === "") throw new SettingProblem("sqlite: needs a file path, such as sqlite:./data/sds.db");
    return { kind: "sqlite", path };
  }
  if (value.startsWith("postgres://") || value.startsWith("postgresql://")) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new SettingProblem("is not a valid postgres:// URL");
    }
    const schema = url.searchParams.get("schema") ?? "public";
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new SettingProblem(`schema parameter must be a plain SQL identifier, got ${JSON.stringify(schema)}`);
    }
    url.searchParams.delete("schema");
    return { kind: "postgres", connectionString: url.toString(), schema };
  }
  // Never echo the value: it may hold a password.
  throw new SettingProblem("must start with sqlite: or postgres:// (or postgresql://)");
}

function databasePassword(database: DatabaseConfig): string[] {
  if (database.kind !== "postgres") return [];
  try {
    const password = decodeURIComponent(new URL(database.connectionString).password);
    return password ? [password] : [];
  } catch {
    // An unparseable URL has no password to find; pg will refuse it with its own message.
    return [];
  }
}

/** The database as safe to print: the file of SQLite, the URL of PostgreSQL with its password masked. */
export function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === "sqlite") return `sqlite:${database.path}`;
  try {
    const url = new URL(database.connectionString);
    if (url.password) url.password = "****";
    url.searchParams.delete("password");
    return `${url.toString()} (schema ${database.schema})`;
  } catch {
    return "postgres (unparseable URL)";
  }
}

function parseCurrency(value: string): string {
  const code = value.toUpperCase();
  if (!/^[A-Z]{3}$/.test(code))
    throw new SettingProblem(
      `must be an ISO 4217 currency code of three letters, such as USD or EUR, got ${JSON.stringify(value)}`,
    );
  return code;
}

function parseApiToken(value: string): string {
  if (value.length < MIN_API_TOKEN_LENGTH)
    throw new SettingProblem(`must be at least ${MIN_API_TOKEN_LENGTH} characters (the value is not shown)`);
  if (/\s/.test(value)) throw new SettingProblem("must not contain whitespace (the value is not shown)");
  return value;
}
