import type { ClientHooks, SdsClient } from "@sds/client";
import type { CommandContext } from "../framework/command.ts";
import { resolveConfig, type ResolvedConfig } from "./config.ts";
import { cliVersion } from "../framework/version.ts";

/** The client of `@sds/client`, re-exported so commands need not import the package themselves. */
export type { SdsClient };

/** A client for the configured service, with the configuration it came from. */
export interface Connection {
  readonly client: SdsClient;
  readonly config: ResolvedConfig;
}

/**
 * Resolves the configuration and makes a client for it. With `--debug` every request,
 * response, retry and failure is traced to stderr, the key redacted by the client (its events
 * are redacted, and a base URL cannot carry credentials).
 *
 * @throws ConfigError when the base URL or the key is missing.
 */
export async function connect(context: CommandContext, overrides: ClientOverrides = {}): Promise<Connection> {
  const config = await resolveConfig(context);
  return { client: await createCliClient(context, config.baseUrl.value, config.apiKey.value, overrides), config };
}

/** Client options a command may set beyond the configuration. */
export interface ClientOverrides {
  /** Retries after a failed attempt; `false` for none (`sds doctor` wants the first answer). */
  readonly retry?: number | false;
}

/**
 * A client for an explicit base URL and key (`sds login` checks a key before saving it). The key
 * was registered as a secret where it entered (configuration or `sds login`), not again here.
 */
export async function createCliClient(
  context: CommandContext,
  baseUrl: string,
  apiKey: string,
  overrides: ClientOverrides = {},
): Promise<SdsClient> {
  // Loaded here, not at the top: `sds help` and `--version` must not pay for the client (and zod).
  const { createClient } = await import("@sds/client");
  return createClient({
    baseUrl,
    apiKey,
    env: context.io.env,
    timeout: context.globals.timeoutMs,
    userAgent: `sds-cli/${cliVersion}`,
    ...(overrides.retry === undefined ? {} : { retry: overrides.retry }),
    ...(context.globals.debug ? { hooks: traceHooks(context) } : {}),
  });
}

function traceHooks(context: CommandContext): ClientHooks {
  const styles = context.output.errorStyles;
  const trace = (line: string) => context.io.stderr.write(styles.dim(line) + "\n");
  return {
    onRequest: (event) => {
      const headers = Object.entries(event.headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join(", ");
      trace(`debug: → ${event.method} ${event.url} (attempt ${event.attempt}) [${headers}]`);
    },
    onResponse: (event) => {
      trace(
        `debug: ← ${event.status} ${event.method} ${event.url} in ${Math.round(event.durationMs)} ms${event.requestId === undefined ? "" : ` (request id ${event.requestId})`}`,
      );
    },
    onRetry: (event) => {
      trace(
        `debug: ↻ retrying ${event.method} ${event.url} in ${Math.round(event.delayMs)} ms${event.fromRetryAfter ? " (Retry-After)" : ""}: ${event.error.message}`,
      );
    },
    onError: (event) => {
      trace(
        `debug: ✗ ${event.method} ${event.url} failed after ${Math.round(event.durationMs)} ms: ${event.error.name}: ${event.error.message}`,
      );
    },
  };
}
