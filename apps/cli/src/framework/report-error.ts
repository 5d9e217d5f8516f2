import { isCliError } from "./errors.ts";
import { ExitCode, exitCodeForError } from "./exit-codes.ts";
import type { OutputStream } from "./io.ts";
import type { Styles } from "./styles.ts";
import { visibleControls } from "./terminal-text.ts";

/** What the entry point needs to report an error. */
export interface ReportContext {
  readonly stderr: OutputStream;
  readonly styles: Styles;
  /** Add the cause chain, validation issues and stack. */
  readonly debug: boolean;
  /** Strings that must never be printed (the API key); replaced wherever they appear. */
  readonly secrets: ReadonlySet<string>;
}

const hintByExitCode: Partial<Record<ExitCode, string>> = {
  [ExitCode.Authentication]:
    "Check the API key (SDS_API_KEY, --api-key-stdin or `sds login`) and that it belongs to this base URL.",
  [ExitCode.NotFound]: "Check the id; `sds surveys list` shows the live surveys.",
  [ExitCode.Network]: "Check the base URL and the network; `sds doctor` diagnoses the connection.",
  [ExitCode.Validation]:
    "The service sent data this version of sds does not understand; run with --debug to see the issues.",
};

/**
 * The shortest secret that is redacted: `MIN_KEY_LENGTH` of @sds/routing (a test keeps the two
 * equal; importing it here would load the signing code at every start). Redacting a few
 * characters would blank them out of ordinary words (`un[redacted]nown`), which shows the key
 * instead of hiding it; a shorter key (`sds link` signs with one, with a warning) is never
 * written into any output in the first place.
 */
export const minimumRedactedLength = 16;

/** The hint of an error, from what it is rather than only its exit code. */
function hintFor(error: Error, exitCode: ExitCode): string | undefined {
  if (exitCode === ExitCode.NotFound) return notFoundHint(error);
  if (error.name === "TimeoutError")
    return "The service did not answer in time: raise --timeout, or check the network; `sds doctor` diagnoses the connection.";
  if (error.name === "ConnectionError") {
    const code = causeCode(error);
    if (code === "ECONNREFUSED")
      return "Nothing accepted the connection: check the host and port of the base URL and that the service is running; `sds doctor` diagnoses the connection.";
    if (code === "ENOTFOUND" || code === "EAI_AGAIN")
      return "The host name of the base URL did not resolve: check it for typos, and the network or DNS; `sds doctor` diagnoses the connection.";
  }
  return hintByExitCode[exitCode];
}

/**
 * A 404 for a request that went outside `/api/v1/` means the base URL lacks it (every route of
 * the service is under it), not that an id is wrong.
 */
function notFoundHint(error: Error): string | undefined {
  const { url } = error as { url?: unknown };
  if (typeof url === "string" && URL.canParse(url) && !new URL(url).pathname.includes("/api/v1/")) {
    return `The base URL must end in /api/v1 (this request went to ${new URL(url).origin}${new URL(url).pathname}); pass --base-url https://HOST/api/v1.`;
  }
  return hintByExitCode[ExitCode.NotFound];
}

/** The system error code (`ECONNREFUSED`) somewhere in the cause chain, if any. */
export function causeCode(error: Error): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * `first` followed by `next` as the next sentence, or joined with `; ` when `first` has no
 * closing punctuation: never `valid.; is…`.
 */
export function joinSentences(first: string, next: string): string {
  return /[.!?]$/.test(first) ? `${first} ${next.charAt(0).toUpperCase()}${next.slice(1)}` : `${first}; ${next}`;
}

/** Error classes whose message is written for users (the client's and the CLI's own). */
const userFacingErrorNames = new Set([
  "ApiError",
  "BadRequestError",
  "AuthenticationError",
  "PermissionDeniedError",
  "NotFoundError",
  "RateLimitError",
  "ServerError",
  "ConnectionError",
  "TimeoutError",
  "ResponseValidationError",
  "RequestValidationError",
  "ConfigurationError",
  "SdsError",
]);

/**
 * Prints an error as one line (what went wrong, then what to do next) and returns its exit
 * code: the one place where errors become output. A stack is printed only with `--debug`, and
 * only for errors that are not the user's (bugs).
 */
export function reportError(error: unknown, context: ReportContext): ExitCode {
  const exitCode = exitCodeForError(error);
  // A server's message is third-party text: its control characters must not drive the terminal.
  const redact = (text: string) => redactSecrets(visibleControls(text, context.styles), context.secrets);
  const { message, hint } = describeError(error, exitCode, context.debug);
  const separator = /[.!?]$/.test(message) ? " " : ". ";
  context.stderr.write(
    redact(`${context.styles.red("error:")} ${message}${hint === undefined ? "" : `${separator}${hint}`}`) + "\n",
  );
  if (context.debug) {
    for (const line of debugDetails(error)) context.stderr.write(redact(context.styles.dim(line)) + "\n");
  }
  return exitCode;
}

function describeError(
  error: unknown,
  exitCode: ExitCode,
  debug: boolean,
): { message: string; hint: string | undefined } {
  if (isCliError(error)) return { message: firstLine(error.message), hint: error.hint };
  if (exitCode === ExitCode.Interrupted) return { message: "interrupted", hint: undefined };
  if (error instanceof Error && isUserFacing(error)) {
    if (exitCode === ExitCode.Validation && debug)
      return {
        message: firstLine(error.message),
        hint: "The service sent data this version of sds does not understand; the issues are below.",
      };
    return {
      message: firstLine(error.message),
      hint: hintFor(error, exitCode) ?? (debug ? undefined : "Run with --debug for details."),
    };
  }
  const message = error instanceof Error ? firstLine(error.message) : String(error);
  return {
    message: `unexpected error: ${message}`,
    hint: debug
      ? "This is a bug in sds; please report it with the details below."
      : "Run with --debug for details, and report it if it persists.",
  };
}

/** The details `--debug` adds: validation issues, server messages, the cause chain, the stack. */
function debugDetails(error: unknown): string[] {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (!(current instanceof Error)) {
      lines.push(`  cause: ${typeof current === "string" ? current : JSON.stringify(current)}`);
      break;
    }
    const fields = current as Error & {
      issues?: unknown;
      messages?: unknown;
      errorCode?: unknown;
      status?: unknown;
      requestId?: unknown;
    };
    if (depth > 0) lines.push(`  caused by ${current.name}: ${current.message}`);
    if (typeof fields.status === "number") lines.push(`  status: ${fields.status}`);
    if (typeof fields.errorCode === "string" && fields.errorCode !== "") lines.push(`  errorCode: ${fields.errorCode}`);
    if (typeof fields.requestId === "string") lines.push(`  request id: ${fields.requestId}`);
    if (Array.isArray(fields.messages) && fields.messages.length > 0)
      lines.push(`  messages: ${fields.messages.map(String).join(" | ")}`);
    if (Array.isArray(fields.issues)) lines.push(...describeIssues(fields.issues));
    // A stack only helps with bugs: for the CLI's and the client's own errors it points at code the user did not write.
    if (!isCliError(current) && !isUserFacing(current) && current.stack !== undefined)
      lines.push(
        ...current.stack
          .split("\n")
          .slice(1)
          .map((line) => `  ${line.trim()}`),
      );
    current = current.cause;
  }
  return lines;
}

function describeIssues(issues: readonly unknown[]): string[] {
  const shown = issues.slice(0, 20).map((issue) => {
    const { path, message } = issue as { path?: unknown; message?: unknown };
    const where = Array.isArray(path) && path.length > 0 ? path.map(String).join(".") : "(root)";
    return `  issue: ${where}: ${String(message)}`;
  });
  if (issues.length > shown.length) shown.push(`  … and ${issues.length - shown.length} more issues`);
  return shown;
}

/** Whether the error's message is written for users (the client's errors and the CLI's own). */
function isUserFacing(error: unknown): boolean {
  return error instanceof Error && userFacingErrorNames.has(error.name);
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? text).trim();
}

/**
 * Replaces every occurrence of every secret of at least {@link minimumRedactedLength}
 * characters in `text` with `[redacted]`.
 */
export function redactSecrets(text: string, secrets: ReadonlySet<string>): string {
  let result = text;
  for (const secret of secrets)
    if (Array.from(secret).length >= minimumRedactedLength) result = result.replaceAll(secret, "[redacted]");
  return result;
}
