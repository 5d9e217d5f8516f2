import type { CommandContext, OptionSpecs } from "../framework/command.ts";
import { nonEmpty, normalizeBaseUrl } from "../connection/config.ts";
import { ConfigError, SyncServiceError, UsageError } from "../framework/errors.ts";
import { ExitCode } from "../framework/exit-codes.ts";
import { causeCode } from "../framework/report-error.ts";
import { readStdinText } from "../framework/stdin.ts";
import { cliVersion } from "../framework/version.ts";

/*
 * How `sds` reaches sds-sync (apps/sync), the supplier's own service, as opposed to the Supplier
 * Data Service every other command calls: its base URL and its SYNC_API_TOKEN. A plain fetch:
 * sds-sync's routes are few, JSON in and out, and the SDS client knows none of them.
 */

/** The environment variable with sds-sync's base URL. */
export const SYNC_URL_ENV = "SDS_SYNC_URL";
/** The environment variable with sds-sync's bearer token: the name sds-sync itself reads. */
export const SYNC_TOKEN_ENV = "SYNC_API_TOKEN";

/** The options of every command that calls sds-sync. The token is never a flag value: flags end up in shell history. */
export const syncConnectionOptions = {
  "sync-url": {
    type: "string",
    valueName: "URL",
    description: `base URL of sds-sync, such as http://127.0.0.1:8787 (env ${SYNC_URL_ENV})`,
  },
  "sync-token-stdin": {
    type: "boolean",
    description: `read sds-sync's API token from standard input (else ${SYNC_TOKEN_ENV}; none when sds-sync runs without one)`,
  },
} as const satisfies OptionSpecs;

const defaultTimeoutMs = 30_000;

/** A configured sds-sync. */
export interface SyncConnection {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * POSTs `body` as JSON to `path` (such as `/v1/outcomes/reconcile`) and returns the parsed
   * JSON answer of a 2xx.
   *
   * @throws SyncServiceError for any other answer or none (the exit code in it).
   */
  post(path: string, body: unknown): Promise<unknown>;
}

/**
 * sds-sync's URL (`--sync-url`, else `SDS_SYNC_URL`) and token (`--sync-token-stdin`, else
 * `SYNC_API_TOKEN`, else none), the token registered as a secret where it enters.
 *
 * @throws ConfigError (exit 2) without a URL; UsageError for a malformed URL or an empty token on stdin.
 */
export async function connectSync(context: CommandContext<typeof syncConnectionOptions>): Promise<SyncConnection> {
  const { options, io } = context;
  const typed = options["sync-url"] ?? nonEmpty(io.env[SYNC_URL_ENV]);
  if (typed === undefined) {
    throw new ConfigError("no sds-sync URL configured", ExitCode.Usage, {
      hint: `Pass --sync-url or set ${SYNC_URL_ENV}, such as http://127.0.0.1:8787.`,
    });
  }
  const source = options["sync-url"] === undefined ? SYNC_URL_ENV : "--sync-url";
  const baseUrl = await normalizeBaseUrl(typed, source, "Give sds-sync's base URL, such as http://127.0.0.1:8787.");
  const token = await readToken(context);
  if (token !== undefined) context.registerSecret(token);
  return { baseUrl, post: (path, body) => postJson(context, baseUrl, token, path, body) };
}

async function readToken(context: CommandContext<typeof syncConnectionOptions>): Promise<string | undefined> {
  if (context.options["sync-token-stdin"] === true) {
    if (context.globals.apiKeyStdin)
      throw new UsageError(
        "--sync-token-stdin and --api-key-stdin both read standard input; put the API key in SDS_API_KEY",
      );
    if (context.io.stdin.isTTY === true)
      context.io.stderr.write("Reading sds-sync's API token from standard input (end with Ctrl-D)…\n");
    const token = (await readStdinText(context.io.stdin)).trim();
    if (token === "")
      throw new UsageError("--sync-token-stdin read an empty token", {
        hint: `Pipe the token in, or set ${SYNC_TOKEN_ENV}.`,
      });
    return token;
  }
  return nonEmpty(context.io.env[SYNC_TOKEN_ENV])?.trim();
}

async function postJson(
  context: CommandContext,
  baseUrl: string,
  token: string | undefined,
  path: string,
  body: unknown,
): Promise<unknown> {
  const url = `${baseUrl}${path}`;
  const timeoutMs = context.globals.timeoutMs ?? defaultTimeoutMs;
  const trace = (line: string) => {
    if (context.globals.debug) context.io.stderr.write(context.output.errorStyles.dim(`debug: ${line}`) + "\n");
  };
  trace(`→ POST ${url}${token === undefined ? "" : " [authorization: Bearer [REDACTED]]"}`);
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "user-agent": `sds-cli/${cliVersion}`,
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    // Ctrl-C: the abort's reason is the interruption, reported as such (exit 130).
    if (context.signal.aborted) throw context.signal.reason;
    throw unreachable(error, url, timeoutMs);
  }
  const text = await response.text().catch(() => "");
  trace(`← ${response.status} POST ${url} in ${Math.round(performance.now() - started)} ms`);
  if (!response.ok) throw refused(response.status, text, path, url, token !== undefined);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SyncServiceError(`sds-sync answered POST ${path} with something that is not JSON`, ExitCode.Validation, {
      status: response.status,
      cause: error,
      hint: `Check that ${url.slice(0, url.length - path.length)} is sds-sync.`,
    });
  }
}

/** No answer: refused connection, unknown host, timeout. */
function unreachable(error: unknown, url: string, timeoutMs: number): SyncServiceError {
  if (error instanceof Error && error.name === "TimeoutError") {
    return new SyncServiceError(`sds-sync did not answer POST ${url} within ${timeoutMs / 1000} s`, ExitCode.Network, {
      cause: error,
      hint: "Raise --timeout, or check that sds-sync is running.",
    });
  }
  // fetch says only "fetch failed"; the reason is its cause's code (ECONNREFUSED) or message ("bad port").
  const cause = error instanceof Error ? error.cause : undefined;
  const reason =
    (error instanceof Error ? causeCode(error) : undefined) ?? (cause instanceof Error ? cause.message : undefined);
  return new SyncServiceError(
    `cannot reach sds-sync at ${url}${reason === undefined ? "" : ` (${reason})`}`,
    ExitCode.Network,
    {
      cause: error,
      hint: `Check --sync-url or ${SYNC_URL_ENV} and that sds-sync is running.`,
    },
  );
}

/** A non-2xx answer, with sds-sync's own message (`{"error":{"code","message"}}`) when it sent one. */
function refused(status: number, text: string, path: string, url: string, sentToken: boolean): SyncServiceError {
  const said = serviceMessage(text);
  const message = `sds-sync refused POST ${path} (${status})${said === undefined ? "" : `: ${said}`}`;
  if (status === 401 || status === 403) {
    return new SyncServiceError(message, ExitCode.Authentication, {
      status,
      hint: sentToken
        ? `Check the token (${SYNC_TOKEN_ENV} or --sync-token-stdin): it must be the SYNC_API_TOKEN sds-sync runs with.`
        : `sds-sync wants a token: set ${SYNC_TOKEN_ENV} or pipe it to --sync-token-stdin.`,
    });
  }
  if (status === 404) {
    return new SyncServiceError(message, ExitCode.NotFound, {
      status,
      hint: `Check that ${url.slice(0, url.length - path.length)} is sds-sync's base URL (no /v1 at the end) and that this sds-sync has the route.`,
    });
  }
  return new SyncServiceError(message, ExitCode.Failure, { status });
}

function serviceMessage(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === "string" ? parsed.error.message : undefined;
  } catch {
    return undefined;
  }
}
