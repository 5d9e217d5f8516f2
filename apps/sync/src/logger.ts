import { pino, type DestinationStream, type Logger } from "pino";
import type { DatabaseConfig, LogLevel, SyncConfig } from "./config.ts";

/**
 * Paths pino censors wherever they appear in a log object: the upstream key and header, the
 * API token, the database URL. The service never logs these on purpose; this catches the
 * accident (a config object or request headers passed whole).
 */
export const redactedPaths = [
  "apiKey",
  "*.apiKey",
  "apiToken",
  "*.apiToken",
  "authorization",
  "*.authorization",
  "headers.authorization",
  '*.headers["eq-partner-access-key"]',
  '*.headers["EQ-PARTNER-ACCESS-KEY"]',
  '"eq-partner-access-key"',
  '"EQ-PARTNER-ACCESS-KEY"',
  "connectionString",
  "*.connectionString",
  "databaseUrl",
  "DATABASE_URL",
  "SDS_API_KEY",
  "SYNC_API_TOKEN",
];

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /**
   * Secret values (the API key, the token, the database password) scrubbed from every line
   * wherever they appear, even inside an error message: the backstop behind path redaction.
   */
  readonly secrets?: readonly string[];
  /** @default stdout */
  readonly destination?: DestinationStream;
}

/** Secrets shorter than this are not scrubbed by value: replacing two characters everywhere would garble every line. */
const MIN_SCRUBBED_SECRET_LENGTH = 4;

/** JSON logs to stdout (or `destination`) at `level`, with secrets redacted by path and by value. */
export function createLogger(level: LogLevel, options: LoggerOptions = {}): Logger {
  const secrets = (options.secrets ?? [])
    .filter((secret) => secret.length >= MIN_SCRUBBED_SECRET_LENGTH)
    .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  const unique = [...new Set(secrets)].sort((a, b) => b.length - a.length);
  const pinoOptions = {
    level,
    base: { service: "sds-sync" },
    redact: { paths: redactedPaths, censor: "[REDACTED]" },
    hooks: {
      streamWrite: (line: string) => unique.reduce((scrubbed, secret) => scrubbed.replaceAll(secret, "[REDACTED]"), line),
    },
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}

/** The secrets of a configuration, for {@link LoggerOptions.secrets}. */
export function configSecrets(config: SyncConfig): string[] {
  const secrets = [config.apiKey];
  if (config.apiToken) secrets.push(config.apiToken);
  if (config.database.kind === "postgres") {
    try {
      const password = decodeURIComponent(new URL(config.database.connectionString).password);
      if (password) secrets.push(password);
    } catch {
      // An unparseable URL has no password to find; pg will refuse it with its own message.
    }
  }
  return secrets;
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

/** The configuration as safe to log: secrets only as present or absent. */
export function describeConfig(config: SyncConfig): Record<string, unknown> {
  return {
    baseUrl: config.baseUrl,
    apiKeySet: config.apiKey.length > 0,
    database: describeDatabase(config.database),
    intervalSeconds: config.intervalSeconds,
    concurrency: config.concurrency,
    host: config.host,
    port: config.port,
    apiTokenSet: config.apiToken !== undefined,
    logLevel: config.logLevel,
    retentionSeconds: config.retentionSeconds,
    cycleTimeoutSeconds: config.cycleTimeoutSeconds,
    maxRecordBytes: config.maxRecordBytes,
    maxListBytes: config.maxListBytes,
  };
}
