import { pino, type DestinationStream, type Logger } from "pino";

/** Log levels pino knows, plus `silent`. */
export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** One of {@link logLevels}. */
export type LogLevel = (typeof logLevels)[number];

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
  "routerToken",
  "*.routerToken",
  "metricsToken",
  "*.metricsToken",
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
  "SYNC_ROUTER_TOKEN",
  "SYNC_METRICS_TOKEN",
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
      streamWrite: (line: string) =>
        unique.reduce((scrubbed, secret) => scrubbed.replaceAll(secret, "[REDACTED]"), line),
    },
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}
