import type * as SyncClientPackage from "@sds/sync-client";
import type { SyncClient, SyncClientHooks, SyncRequestOptions } from "@sds/sync-client";
import type { CommandContext, OptionSpecs } from "../framework/command.ts";
import { nonEmpty, normalizeBaseUrl } from "../connection/config.ts";
import { ConfigError, SyncServiceError, UsageError } from "../framework/errors.ts";
import { ExitCode } from "../framework/exit-codes.ts";
import { causeCode } from "../framework/report-error.ts";
import { readStdinText } from "../framework/stdin.ts";
import { cliVersion } from "../framework/version.ts";

/*
 * How `sds` reaches sds-sync (apps/sync), the supplier's own service, as opposed to the Supplier
 * Data Service every other command calls: its base URL and its SYNC_API_TOKEN, and a client of
 * `@sds/sync-client`, the package that owns sds-sync's contract. Its failures become one
 * SyncServiceError each here, with the exit code and what to do.
 */

/** The environment variable with sds-sync's base URL (the name `@sds/sync-client` reads too). */
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
   * Runs calls of the client (given the run's signal in `options`) and turns any failure of
   * `@sds/sync-client` into a {@link SyncServiceError} with its exit code: 3 for the token, 4 for
   * a route this sds-sync lacks, 5 for the network, 6 for an answer off the contract, 1 otherwise.
   */
  call<T>(work: (client: SyncClient, options: SyncRequestOptions) => Promise<T>): Promise<T>;
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
  const syncClient = await import("@sds/sync-client");
  const timeoutMs = context.globals.timeoutMs ?? defaultTimeoutMs;
  const client = syncClient.createSyncClient({
    baseUrl,
    ...(token === undefined ? {} : { token }),
    timeout: timeoutMs,
    userAgent: `sds-cli/${cliVersion}`,
    // Everything was resolved above, from this run's environment: nothing more is read.
    env: {},
    hooks: debugHooks(context),
  });
  return {
    baseUrl,
    async call(work) {
      try {
        return await work(client, { signal: context.signal });
      } catch (error) {
        // Ctrl-C: the abort's reason is the interruption, reported as such (exit 130).
        if (context.signal.aborted) throw context.signal.reason;
        throw syncFailure(syncClient, error, { baseUrl, timeoutMs, sentToken: token !== undefined });
      }
    },
  };
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

/** `--debug`'s request trace on stderr, from the client's hooks (which see the token only as `[REDACTED]`). */
function debugHooks(context: CommandContext): SyncClientHooks {
  if (!context.globals.debug) return {};
  const trace = (line: string) => context.io.stderr.write(context.output.errorStyles.dim(`debug: ${line}`) + "\n");
  return {
    onRequest: (event) => {
      // The hook sees the header's value as [REDACTED] already; the token is always a bearer token.
      const authorized = Object.keys(event.headers).some((name) => name.toLowerCase() === "authorization");
      trace(
        `→ ${event.method} ${event.url}${authorized ? " [authorization: Bearer [REDACTED]]" : ""}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`,
      );
    },
    onResponse: (event) => {
      trace(`← ${event.status} ${event.method} ${event.url} in ${Math.round(event.durationMs)} ms`);
    },
    onRetry: (event) => {
      trace(`retrying ${event.method} ${event.url}: ${event.error.message}`);
    },
  };
}

type SyncClientModule = typeof SyncClientPackage;

/** The {@link SyncServiceError} for a failure of a call to sds-sync: what happened and what to do. */
function syncFailure(
  module: SyncClientModule,
  error: unknown,
  details: { readonly baseUrl: string; readonly timeoutMs: number; readonly sentToken: boolean },
): unknown {
  if (!module.isSyncClientError(error)) return error;
  const request = `${error.method ?? "a request to"} ${error.path ?? ""}`.trim();
  const url = error.url ?? details.baseUrl;
  if (module.isSyncApiError(error)) {
    const said = error.serviceMessage === undefined ? "" : `: ${error.serviceMessage}`;
    const message = `sds-sync refused ${request} (${error.status})${said}`;
    if (module.isSyncAuthenticationError(error) || module.isSyncPermissionDeniedError(error))
      return new SyncServiceError(message, ExitCode.Authentication, {
        status: error.status,
        cause: error,
        hint: details.sentToken
          ? `Check the token (${SYNC_TOKEN_ENV} or --sync-token-stdin): it must be the SYNC_API_TOKEN sds-sync runs with.`
          : `sds-sync wants a token: set ${SYNC_TOKEN_ENV} or pipe it to --sync-token-stdin.`,
      });
    // A route sds-sync lacks (`no route …`, or a server that is not sds-sync): the base URL is wrong.
    if (module.isSyncNotFoundError(error))
      return new SyncServiceError(message, ExitCode.NotFound, {
        status: error.status,
        cause: error,
        ...(error.serviceMessage === undefined || error.serviceMessage.startsWith("no route")
          ? {
              hint: `Check that ${details.baseUrl} is sds-sync's base URL (no /v1 at the end) and that this sds-sync has the route.`,
            }
          : {}),
      });
    return new SyncServiceError(message, ExitCode.Failure, { status: error.status, cause: error });
  }
  if (module.isSyncTimeoutError(error))
    return new SyncServiceError(
      `sds-sync did not answer ${request} within ${details.timeoutMs / 1000} s`,
      ExitCode.Network,
      { cause: error, hint: "Raise --timeout, or check that sds-sync is running." },
    );
  if (module.isSyncConnectionError(error)) {
    // fetch says only "fetch failed"; the reason is its cause's code (ECONNREFUSED) or message ("bad port").
    const inner = error.cause instanceof Error ? error.cause : undefined;
    const reason = causeCode(error) ?? (inner?.cause instanceof Error ? inner.cause.message : inner?.message);
    return new SyncServiceError(
      `cannot reach sds-sync at ${url}${reason === undefined ? "" : ` (${reason})`}`,
      ExitCode.Network,
      { cause: error, hint: `Check --sync-url or ${SYNC_URL_ENV} and that sds-sync is running.` },
    );
  }
  if (module.isSyncResponseValidationError(error))
    return new SyncServiceError(
      `sds-sync's answer to ${request} does not match its contract (${error.issues.length} issue${error.issues.length === 1 ? "" : "s"})`,
      ExitCode.Validation,
      {
        cause: error,
        hint: `Check that ${details.baseUrl} is sds-sync, of a version with this route; --debug shows the issues.`,
      },
    );
  if (module.isSyncRequestValidationError(error))
    return new SyncServiceError(`sds-sync would refuse ${request}: ${error.message}`, ExitCode.Usage, {
      cause: error,
    });
  return new SyncServiceError(error.message, ExitCode.Failure, { cause: error });
}
