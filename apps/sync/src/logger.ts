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

/** JSON logs to stdout (or `destination`) at `level`, with secrets redacted. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, base: { service: "sds-sync" }, redact: { paths: redactedPaths, censor: "[REDACTED]" } };
  return destination ? pino(options, destination) : pino(options);
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
  };
}
