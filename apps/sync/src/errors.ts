/**
 * The error family of sds-sync. Every error the service raises on purpose is a {@link SyncError};
 * the entry point turns them into a log line and an exit code in one place.
 */
export class SyncError extends Error {
  override name: string = "SyncError";
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

/** The store could not be opened, migrated or written. */
export class StoreError extends SyncError {
  override name = "StoreError" as const;
}


/** Whether a value is a {@link ConfigError}, across duplicated copies of this module. */
export function isConfigError(value: unknown): value is ConfigError {
  return value instanceof Error && value.name === "ConfigError" && "issues" in value;
}
