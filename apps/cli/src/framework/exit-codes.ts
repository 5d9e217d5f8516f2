/**
 * The exit codes of `sds`, the only place they are defined. Scripts branch on them, so they
 * are part of the CLI's public contract: never renumber one.
 */
export const ExitCode = {
  /** The command did what it was asked. */
  Ok: 0,
  /** The service answered with an error, or something else went wrong. */
  Failure: 1,
  /** The command line was wrong: unknown command or option, bad value, missing setting. */
  Usage: 2,
  /** The API key is missing, or the service rejected it (401/403). */
  Authentication: 3,
  /** The survey, collection entry or route does not exist (404). */
  NotFound: 4,
  /** The service could not be reached, or did not answer in time. */
  Network: 5,
  /** The service answered, but its data did not match the published schema. */
  Validation: 6,
  /** Interrupted with Ctrl-C or SIGTERM before it finished (128 + SIGINT, as shells report it). */
  Interrupted: 130,
} as const;

/** One of the values of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Every exit code with the line `sds --help` prints for it, in numeric order. */
export const exitCodeDescriptions: readonly (readonly [ExitCode, string])[] = [
  [ExitCode.Ok, "success"],
  [ExitCode.Failure, "API error or other failure"],
  [ExitCode.Usage, "usage error (unknown command or option, bad value, missing base URL)"],
  [ExitCode.Authentication, "authentication failed (no API key, or the key was rejected)"],
  [ExitCode.NotFound, "not found (unknown survey, collection entry or route)"],
  [ExitCode.Network, "network error or timeout"],
  [ExitCode.Validation, "the service's data failed validation"],
  [ExitCode.Interrupted, "interrupted (Ctrl-C)"],
];

/*
 * Client errors are recognised by `name`, not `instanceof`: the entry point must not load the
 * client just to classify an error (start-up speed), and `name` also survives duplicated copies
 * of the client package.
 */
const exitCodeByErrorName: ReadonlyMap<string, ExitCode> = new Map(
  Object.entries({
    AuthenticationError: ExitCode.Authentication,
    PermissionDeniedError: ExitCode.Authentication,
    NotFoundError: ExitCode.NotFound,
    ConnectionError: ExitCode.Network,
    TimeoutError: ExitCode.Network,
    ResponseValidationError: ExitCode.Validation,
    ConfigurationError: ExitCode.Usage,
    RequestValidationError: ExitCode.Usage,
    AbortError: ExitCode.Interrupted,
    RequestAbortedError: ExitCode.Interrupted,
  }),
);
/**
 * The exit code for an error thrown by a command: its own `exitCode` when it is a CLI error,
 * else the code its class name maps to, else {@link ExitCode.Failure}.
 */
export function exitCodeForError(error: unknown): ExitCode {
  if (typeof error !== "object" || error === null) return ExitCode.Failure;
  const { exitCode, name } = error as { exitCode?: unknown; name?: unknown };
  if (isExitCode(exitCode)) return exitCode;
  if (typeof name === "string") return exitCodeByErrorName.get(name) ?? ExitCode.Failure;
  return ExitCode.Failure;
}

function isExitCode(value: unknown): value is ExitCode {
  return typeof value === "number" && Object.values(ExitCode).includes(value as ExitCode);
}
