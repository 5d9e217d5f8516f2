import { ConfigError, type ConfigIssue } from "./errors.ts";

/** Where the service keeps its copy: an embedded SQLite file or a PostgreSQL schema. */
export type DatabaseConfig =
  | { readonly kind: "sqlite"; /** File path, or `:memory:`. */ readonly path: string }
  | {
      readonly kind: "postgres";
      /** The connection string as given, without the `schema` parameter. */
      readonly connectionString: string;
      /** Schema holding the tables, from the URL's `schema` parameter. @default "public" */
      readonly schema: string;
    };

/** Log levels pino knows, plus `silent`. */
export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** One of {@link logLevels}. */
export type LogLevel = (typeof logLevels)[number];

/** The whole configuration of sds-sync, read once at start from the environment. */
export interface SyncConfig {
  /** `SDS_BASE_URL`: the upstream base URL, ending in `/api/v1`. */
  readonly baseUrl: string;
  /** `SDS_API_KEY`: sent as `EQ-PARTNER-ACCESS-KEY`. Secret. */
  readonly apiKey: string;
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
  /** `SYNC_API_TOKEN`: bearer token every `/v1` route requires when set. Secret. */
  readonly apiToken: string | undefined;
  /** `LOG_LEVEL`. @default "info" */
  readonly logLevel: LogLevel;
  /** `SYNC_RETENTION_SECONDS`: feed entries, run records and resolved quarantine older than this are pruned. @default 604800 (7 days) */
  readonly retentionSeconds: number;
  /**
   * `SYNC_CYCLE_TIMEOUT` in seconds: a cycle still running after this long fails (rolled back,
   * recorded as failed) and the next one runs on schedule. @default {@link defaultCycleTimeoutSeconds} of the interval
   */
  readonly cycleTimeoutSeconds: number;
  /** `SYNC_MAX_RECORD_BYTES`: a survey, qualification or quota record larger than this is quarantined. @default 1048576 */
  readonly maxRecordBytes: number;
  /** `SYNC_MAX_LIST_BYTES`: a Get Surveys body larger than this fails the cycle. @default 536870912 */
  readonly maxListBytes: number;
}

/** Bounds of the default `SYNC_CYCLE_TIMEOUT`, in seconds: generous enough for a first sync, short enough to notice a trickle. */
export const CYCLE_TIMEOUT_DEFAULT_BOUNDS = { min: 300, max: 3600 } as const;

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
export function defaultCycleTimeoutSeconds(intervalSeconds: number): number {
  return Math.min(CYCLE_TIMEOUT_DEFAULT_BOUNDS.max, Math.max(CYCLE_TIMEOUT_DEFAULT_BOUNDS.min, 10 * intervalSeconds));
}

/** Defaults of every optional variable, as documented in the README's table. */
export const configDefaults = {
  DATABASE_URL: "sqlite:./data/sds.db",
  SYNC_INTERVAL: 60,
  SYNC_CONCURRENCY: 8,
  PORT: 8787,
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  SYNC_RETENTION_SECONDS: 7 * 24 * 3600,
  /** One survey, qualification or quota record: a survey is about 1 KB, a long ZIP-code qualification some 100 KB. */
  SYNC_MAX_RECORD_BYTES: 1_048_576,
  /** The whole Get Surveys body: about 500,000 surveys. */
  SYNC_MAX_LIST_BYTES: 536_870_912,
} as const;

/** Bounds of `SYNC_RETENTION_SECONDS`: a minute (tests, demos) to ten years. */
export const RETENTION_BOUNDS = { min: 60, max: 10 * 365 * 24 * 3600, integer: true } as const;

/** Upper bound of `SYNC_CONCURRENCY`: beyond it a supplier risks the upstream's unknown rate limits. */
export const MAX_CONCURRENCY = 64;
/** Shortest `SYNC_API_TOKEN` accepted: a guessable token is worse than none because it looks safe. */
export const MIN_API_TOKEN_LENGTH = 16;

type Environment = Readonly<Record<string, string | undefined>>;

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
  const issues: ConfigIssue[] = [];
  const read = (variable: string): string | undefined => {
    const value = env[variable]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const fail = (variable: string, message: string): null => {
    issues.push({ variable, message });
    return null;
  };

  const baseUrl = parseBaseUrl(read("SDS_BASE_URL"), fail);
  const apiKey = read("SDS_API_KEY") ?? fail("SDS_API_KEY", "is required (the key sent as EQ-PARTNER-ACCESS-KEY)");
  const database = parseDatabaseUrl(read("DATABASE_URL") ?? configDefaults.DATABASE_URL, fail);
  const intervalSeconds = parseNumber("SYNC_INTERVAL", read("SYNC_INTERVAL"), configDefaults.SYNC_INTERVAL, { min: 0.1, max: 86_400, integer: false }, fail);
  const concurrency = parseNumber("SYNC_CONCURRENCY", read("SYNC_CONCURRENCY"), configDefaults.SYNC_CONCURRENCY, { min: 1, max: MAX_CONCURRENCY, integer: true }, fail);
  const port = parseNumber("PORT", read("PORT"), configDefaults.PORT, { min: 0, max: 65_535, integer: true }, fail);
  const host = read("HOST") ?? configDefaults.HOST;
  const apiToken = parseApiToken(read("SYNC_API_TOKEN"), fail);
  const logLevel = parseLogLevel(read("LOG_LEVEL") ?? configDefaults.LOG_LEVEL, fail);
  const retentionSeconds = parseNumber("SYNC_RETENTION_SECONDS", read("SYNC_RETENTION_SECONDS"), configDefaults.SYNC_RETENTION_SECONDS, RETENTION_BOUNDS, fail);
  const maxRecordBytes = parseNumber("SYNC_MAX_RECORD_BYTES", read("SYNC_MAX_RECORD_BYTES"), configDefaults.SYNC_MAX_RECORD_BYTES, { min: 1024, max: 268_435_456, integer: true }, fail);
  const maxListBytes = parseNumber("SYNC_MAX_LIST_BYTES", read("SYNC_MAX_LIST_BYTES"), configDefaults.SYNC_MAX_LIST_BYTES, { min: 1024, max: 17_179_869_184, integer: true }, fail);
  const cycleTimeoutSeconds = parseNumber("SYNC_CYCLE_TIMEOUT", read("SYNC_CYCLE_TIMEOUT"), defaultCycleTimeoutSeconds(intervalSeconds ?? configDefaults.SYNC_INTERVAL), { min: 1, max: 86_400, integer: false }, fail);

  if (issues.length > 0 || baseUrl === null || apiKey === null || database === null) throw new ConfigError(issues);
  return {
    baseUrl,
    apiKey,
    database,
    intervalSeconds: intervalSeconds ?? configDefaults.SYNC_INTERVAL,
    concurrency: concurrency ?? configDefaults.SYNC_CONCURRENCY,
    port: port ?? configDefaults.PORT,
    host,
    apiToken: apiToken ?? undefined,
    logLevel: logLevel ?? configDefaults.LOG_LEVEL,
    retentionSeconds: retentionSeconds ?? configDefaults.SYNC_RETENTION_SECONDS,
    cycleTimeoutSeconds: cycleTimeoutSeconds ?? defaultCycleTimeoutSeconds(configDefaults.SYNC_INTERVAL),
    maxRecordBytes: maxRecordBytes ?? configDefaults.SYNC_MAX_RECORD_BYTES,
    maxListBytes: maxListBytes ?? configDefaults.SYNC_MAX_LIST_BYTES,
  };
}

type Fail = (variable: string, message: string) => null;

function parseBaseUrl(value: string | undefined, fail: Fail): string | null {
  if (value === undefined) return fail("SDS_BASE_URL", "is required (the service's base URL, ending in /api/v1)");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail("SDS_BASE_URL", `is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return fail("SDS_BASE_URL", `must be http or https, got ${url.protocol}`);
  if (url.username || url.password) return fail("SDS_BASE_URL", "must not carry credentials; put the key in SDS_API_KEY");
  return value.replace(/\/+$/, "");
}

function parseDatabaseUrl(value: string, fail: Fail): DatabaseConfig | null {
  if (value.startsWith("sqlite:")) {
    const path = value.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (path === "") return fail("DATABASE_URL", "sqlite: needs a file path, such as sqlite:./data/sds.db");
    return { kind: "sqlite", path };
  }
  if (value.startsWith("postgres://") || value.startsWith("postgresql://")) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return fail("DATABASE_URL", "is not a valid postgres:// URL");
    }
    const schema = url.searchParams.get("schema") ?? "public";
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      return fail("DATABASE_URL", `schema parameter must be a plain SQL identifier, got ${JSON.stringify(schema)}`);
    }
    url.searchParams.delete("schema");
    return { kind: "postgres", connectionString: url.toString(), schema };
  }
  // Never echo the value: it may hold a password.
  return fail("DATABASE_URL", "must start with sqlite: or postgres:// (or postgresql://)");
}

function parseNumber(
  variable: string,
  value: string | undefined,
  fallback: number,
  bounds: { readonly min: number; readonly max: number; readonly integer: boolean },
  fail: Fail,
): number | null {
  if (value === undefined) return fallback;
  const number = Number(value);
  const kind = bounds.integer ? "an integer" : "a number";
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(number) || (bounds.integer && !Number.isInteger(number))) {
    return fail(variable, `must be ${kind}, got ${JSON.stringify(value)}`);
  }
  if (number < bounds.min || number > bounds.max) return fail(variable, `must be between ${bounds.min} and ${bounds.max}, got ${value}`);
  return number;
}

function parseApiToken(value: string | undefined, fail: Fail): string | undefined | null {
  if (value === undefined) return undefined;
  if (value.length < MIN_API_TOKEN_LENGTH) return fail("SYNC_API_TOKEN", `must be at least ${MIN_API_TOKEN_LENGTH} characters (the value is not shown)`);
  if (/\s/.test(value)) return fail("SYNC_API_TOKEN", "must not contain whitespace (the value is not shown)");
  return value;
}

function parseLogLevel(value: string, fail: Fail): LogLevel | null {
  const level = value.toLowerCase();
  const known = logLevels.find((candidate) => candidate === level);
  return known ?? fail("LOG_LEVEL", `must be one of ${logLevels.join(", ")}, got ${JSON.stringify(value)}`);
}
