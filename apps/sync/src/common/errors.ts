/** What an error means to an HTTP client that ran into it. */
export interface HttpMeaning {
  readonly status: number;
  /** Stable code of the error body, such as `store_unavailable`. */
  readonly code: string;
  /** What the client is told; the error's own message (which may hold internals) goes to the log only. */
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether the service log gets the error: true for faults of the service, false for the caller's. */
  readonly logged: boolean;
}

/**
 * The error family of sds-sync. Every error the service raises on purpose is a {@link SyncError};
 * the entry point turns them into a log line and an exit code in one place, and the HTTP server
 * turns those that carry an {@link HttpMeaning} into their answer (by `instanceof`, never by name).
 */
export class SyncError extends Error {
  override name: string = "SyncError";
  /** The answer to a request that ran into this error; `undefined` means an unexpected error (500). */
  get http(): HttpMeaning | undefined {
    return undefined;
  }
}

/** One problem with one environment variable. */
export interface ConfigIssue {
  /** The environment variable at fault, such as `SYNC_INTERVAL`. */
  readonly variable: string;
  readonly message: string;
}

/** The configuration cannot start the service: every problem found, each naming its variable. */
export class ConfigError extends SyncError {
  override name = "ConfigError" as const;
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  ${issue.variable}: ${issue.message}`).join("\n")}`);
    this.issues = issues;
  }
}

/**
 * The store could not be opened, migrated, read or written. Driver errors (pg, node:sqlite) are
 * turned into this where the store meets them (store/store-errors.ts), so nothing above the
 * store classifies driver errors.
 */
export class StoreError extends SyncError {
  override name: string = "StoreError";
  override get http(): HttpMeaning {
    return {
      status: 503,
      code: "store_unavailable",
      message: "the store cannot be read right now; retry shortly",
      headers: { "retry-after": "5" },
      logged: true,
    };
  }
}

/**
 * The store refused the data of a request (PostgreSQL SQLSTATE classes 22 and 23, SQLite's
 * constraint, mismatch and too-big errors): an invalid value, a broken constraint. A retry fails
 * the same way, so it is a 422 (never a 503, which a client retries for ever); the transaction it
 * ran in was rolled back, so nothing of the request was recorded. Still a {@link StoreError} to
 * anything else that ran into it (a cycle: "store").
 */
export class StoreDataError extends StoreError {
  override name = "StoreDataError" as const;
  /** The driver's code: a SQLSTATE (`23514`) or SQLite's extended result code (`SQLITE_CONSTRAINT_TRIGGER`). */
  readonly driverCode: string;
  constructor(message: string, driverCode: string, options?: ErrorOptions) {
    super(message, options);
    this.driverCode = driverCode;
  }
  override get http(): HttpMeaning {
    return {
      status: 422,
      code: "store_refused_data",
      message: `the store refused this request's data (${this.driverCode}); nothing of the request was recorded, and sending it again will fail the same way`,
      logged: true,
    };
  }
}

/**
 * A long-poll (`wait=`) found every waiting place taken (`SYNC_MAX_LONG_POLLS`): each waiting
 * reader holds a connection, a timer and a promise, so their number is bounded like any other
 * resource a caller can claim. The reader is told to come back, not left hanging.
 */
export class LongPollLimitError extends SyncError {
  override name = "LongPollLimitError" as const;
  readonly limit: number;
  constructor(limit: number) {
    super(`${limit} readers are already waiting on this feed (SYNC_MAX_LONG_POLLS)`);
    this.limit = limit;
  }
  override get http(): HttpMeaning {
    return {
      status: 503,
      code: "too_many_long_polls",
      message: `${this.limit} readers are already waiting on this feed: retry after the Retry-After delay, or read it without wait`,
      headers: { "retry-after": String(LONG_POLL_RETRY_AFTER_SECONDS) },
      logged: false,
    };
  }
}

/** Seconds a reader turned away by {@link LongPollLimitError} is asked to wait. */
export const LONG_POLL_RETRY_AFTER_SECONDS = 2;

/** Whether a value is a {@link ConfigError}, across duplicated copies of this module. */
export function isConfigError(value: unknown): value is ConfigError {
  return value instanceof Error && value.name === "ConfigError" && "issues" in value;
}

/** The API's port is taken by another process. */
export class PortInUseError extends SyncError {
  override name = "PortInUseError" as const;
  readonly host: string;
  readonly port: number;
  constructor(host: string, port: number, options?: ErrorOptions) {
    super(
      `port ${port} on ${host} is already in use by another process: stop it, or choose another port (0 picks a free one)`,
      options,
    );
    this.host = host;
    this.port = port;
  }
}
