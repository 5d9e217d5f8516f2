import { ExitCode } from "./exit-codes.ts";

/** Options shared by every {@link CliError}. */
export interface CliErrorOptions {
  /** What the user can do about it, printed after the message on the same line. */
  readonly hint?: string;
  readonly cause?: unknown;
}

/**
 * The base of every error the CLI itself throws. The entry point prints `message` and `hint`
 * as one line and exits with `exitCode`; it never prints a stack for one of these.
 */
export class CliError extends Error {
  override name: string = "CliError";
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: ExitCode, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = exitCode;
    this.hint = options.hint;
  }
}

/** The command line was wrong: an unknown command or option, a bad value, a missing argument. */
export class UsageError extends CliError {
  override name = "UsageError" as const;

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, ExitCode.Usage, options);
  }
}

/** A setting the command needs (base URL, API key, profile) is missing or unusable. */
export class ConfigError extends CliError {
  override name = "ConfigError" as const;
}

/**
 * Some of the work failed while the rest succeeded (an export with failed surveys, a list with
 * invalid items): the output was written, and the exit code still says something went wrong.
 */
export class PartialFailureError extends CliError {
  override name = "PartialFailureError" as const;
}

/** A check of `sds doctor` failed; the report is already printed. */
export class CheckFailedError extends CliError {
  override name = "CheckFailedError" as const;
}

/**
 * sds-sync (not the Supplier Data Service) refused a request or could not be reached; the exit
 * code says which: 3 for the token, 4 for a route it lacks, 5 for the network, 1 otherwise.
 */
export class SyncServiceError extends CliError {
  override name = "SyncServiceError" as const;
  /** The HTTP status sds-sync answered, or undefined when it never answered. */
  readonly status: number | undefined;

  constructor(message: string, exitCode: ExitCode, options: CliErrorOptions & { readonly status?: number } = {}) {
    super(message, exitCode, options);
    this.status = options.status;
  }
}

/** Whether `error` is a {@link CliError}, also across duplicated copies of this module. */
export function isCliError(error: unknown): error is CliError {
  return error instanceof CliError || (error instanceof Error && "exitCode" in error && "hint" in error);
}
