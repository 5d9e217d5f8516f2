import type { Logger } from "pino";
import { SyncError } from "../common/errors.ts";
import { setTimeout as delay } from "node:timers/promises";

/**
 * Error codes that mean the database could not be reached (yet), as opposed to a database that
 * answered with a refusal: the network's (Node.js) and PostgreSQL's connection classes
 * (`08…`), a server still starting or shutting down (`57P03`) and one out of connections (`53300`).
 */
const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

/** First pause between two attempts, doubled after each, up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 1000;
const MAX_PAUSE_MS = 10_000;

/** The database stayed unreachable for `SYNC_DATABASE_START_TIMEOUT_SECONDS`: exit 75 (EX_TEMPFAIL), a supervisor may try again later. */
export class DatabaseUnreachableError extends SyncError {
  override name = "DatabaseUnreachableError" as const;
  readonly attempts: number;
  constructor(message: string, attempts: number, options?: ErrorOptions) {
    super(message, options);
    this.attempts = attempts;
  }
}

/**
 * Whether `error` (or an error it wraps, through `cause` or an AggregateError's `errors`) says the
 * database could not be reached, rather than that it refused something.
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (depth > 8 || typeof error !== "object" || error === null) return false;
  const { code, cause, errors, message } = error as {
    code?: unknown;
    cause?: unknown;
    errors?: unknown;
    message?: unknown;
  };
  if (typeof code === "string" && unreachableCodes.has(code)) return true;
  // pg ends a connection the server dropped during the handshake with this message and no code.
  if (typeof message === "string" && /^Connection terminated (unexpectedly|due to connection timeout)/.test(message))
    return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnreachable(inner, depth + 1))) return true;
  return isDatabaseUnreachable(cause, depth + 1);
}

/** Options of {@link retryWhileUnreachable}. */
export interface StartRetryOptions {
  /** How long to keep trying, from the first attempt (`SYNC_DATABASE_START_TIMEOUT_SECONDS`); 0 tries once. */
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** The database as safe to log (no password). */
  readonly database: string;
  /** Ends the retries (a stop asked for during start): the last failure is thrown. */
  readonly signal?: AbortSignal;
  /** @default a timer that the signal ends early */
  readonly pause?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** @default performance.now */
  readonly now?: () => number;
}

/**
 * Runs `open` until it succeeds, retrying with backoff (1 s, doubling, at most 10 s) while the
 * database is unreachable and `timeoutMs` has not passed, with a log line per failed attempt.
 * Any other failure is thrown at once.
 *
 * @throws DatabaseUnreachableError once the time is up with the database still unreachable.
 */
export async function retryWhileUnreachable<T>(open: () => Promise<T>, options: StartRetryOptions): Promise<T> {
  const { timeoutMs, logger, signal } = options;
  const now = options.now ?? (() => performance.now());
  const pause = options.pause ?? pauseUnlessAborted;
  const startedAt = now();
  let delayMs = FIRST_PAUSE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      const opened = await open();
      if (attempt > 1) logger.info({ attempt, database: options.database }, "the database is reachable");
      return opened;
    } catch (error) {
      if (!isDatabaseUnreachable(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      const remainingMs = timeoutMs - (now() - startedAt);
      if (remainingMs <= 0 || signal?.aborted) {
        const seconds = Math.round(timeoutMs / 100) / 10;
        throw new DatabaseUnreachableError(
          `the database ${options.database} could not be reached (${attempt} attempt${attempt === 1 ? "" : "s"} in ${seconds} s, SYNC_DATABASE_START_TIMEOUT_SECONDS): ${reason}`,
          attempt,
          { cause: error },
        );
      }
      const waitMs = Math.min(delayMs, remainingMs);
      logger.warn(
        { attempt, database: options.database, retryInMs: Math.round(waitMs), reason },
        `the database cannot be reached (attempt ${attempt}): ${reason}; retrying in ${(waitMs / 1000).toFixed(1)} s`,
      );
      await pause(waitMs, signal);
      delayMs = Math.min(delayMs * 2, MAX_PAUSE_MS);
    }
  }
}

/** Waits `ms`, or less when `signal` aborts (the retry loop then ends on its own). */
function pauseUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
}
