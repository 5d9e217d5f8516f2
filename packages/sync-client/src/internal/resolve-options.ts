import { isConfigurationError, parseBaseUrl, type FetchFunction } from "@sds/client";
import type { SyncClientOptions, SyncRequestOptions, SyncRetryOptions, SyncValidationMode } from "../client-options.ts";
import { SyncConfigurationError } from "../errors/sync-client-error.ts";
import type { SyncClientHooks } from "../hooks.ts";
import { syncClientVersion } from "./version.ts";

/** The environment variable with sds-sync's base URL (the name the `sds` CLI reads too). */
export const SYNC_URL_ENV = "SDS_SYNC_URL";
/** The environment variable with sds-sync's bearer token: the name sds-sync itself reads. */
export const SYNC_TOKEN_ENV = "SYNC_API_TOKEN";

/** Retry options with every default filled in. */
export interface ResolvedRetry {
  readonly limit: number;
  readonly initialDelay: number;
  readonly maxDelay: number;
  readonly maxRetryAfter: number;
  readonly jitter: boolean;
}

/** Client options with defaults applied and every value checked. */
export interface SyncClientConfig {
  /** Without a trailing slash. */
  readonly baseUrl: string;
  readonly fetch: FetchFunction;
  readonly timeout: number | false;
  readonly deadline: number | false;
  readonly retry: ResolvedRetry;
  readonly validation: SyncValidationMode;
  /** Headers of every request, the token included. */
  readonly headers: Readonly<Record<string, string>>;
  /** Values scrubbed from any text the service sends back: the token. */
  readonly secrets: readonly string[];
  readonly hooks: SyncClientHooks;
}

/** The settings of one call: the client's, overridden by the call's options. */
export interface SyncCallSettings {
  readonly timeout: number | false;
  readonly deadline: number | false;
  readonly retry: ResolvedRetry;
  readonly headers: Readonly<Record<string, string>>;
}

/*
 * @sds/client's defaults, but for `maxRetryAfter`: sds-sync answers a respondent's request, so a
 * store or settings hiccup (Retry-After: 5) is waited out, and a minute's wait (links that cannot
 * be signed yet: Retry-After: 60) is the caller's to decide, thrown at once.
 */
const defaultRetry: ResolvedRetry = {
  limit: 2,
  initialDelay: 500,
  maxDelay: 8000,
  maxRetryAfter: 10_000,
  jitter: true,
};
/** The longest delay `setTimeout` can wait. */
const maxTimerDelay = 2_147_483_647;

function readEnv(name: string, env: SyncClientOptions["env"]): string | undefined {
  const source =
    env ?? (globalThis as { process?: { env?: Readonly<Record<string, string | undefined>> } }).process?.env;
  const value = source !== undefined && Object.hasOwn(source, name) ? source[name] : undefined;
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** Checks `options` and fills in defaults and the environment fallbacks. @throws SyncConfigurationError */
export function resolveSyncClientOptions(options: SyncClientOptions): SyncClientConfig {
  const rawUrl = options.baseUrl ?? readEnv(SYNC_URL_ENV, options.env);
  if (rawUrl === undefined || rawUrl.trim() === "")
    throw new SyncConfigurationError(
      `Missing sds-sync base URL: pass \`baseUrl\` (such as http://127.0.0.1:8787) or set ${SYNC_URL_ENV}.`,
      "baseUrl",
    );
  const baseUrl = checkBaseUrl(rawUrl);
  const token = (options.token ?? readEnv(SYNC_TOKEN_ENV, options.env))?.trim();
  if (token === "")
    throw new SyncConfigurationError("`token` is empty: pass the SYNC_API_TOKEN sds-sync runs with, or none.", "token");
  const userFetch = options.fetch;
  return {
    baseUrl,
    fetch: userFetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeout: checkDuration(options.timeout ?? 30_000, "timeout"),
    deadline: checkDuration(options.deadline ?? false, "deadline"),
    retry: resolveRetry(defaultRetry, options.retry),
    validation: checkValidation(options.validation ?? "loose"),
    headers: {
      accept: "application/json",
      // A browser ignores a custom User-Agent at best, and it may fail the CORS preflight at worst.
      ...(options.userAgent !== undefined || !isBrowser()
        ? { "user-agent": options.userAgent ?? `@sds/sync-client/${syncClientVersion}` }
        : {}),
      ...lowerCaseKeys(options.headers ?? {}),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    secrets: token === undefined ? [] : [token],
    hooks: options.hooks ?? {},
  };
}

/** The settings of one call. @throws SyncConfigurationError on an invalid call option */
export function resolveCallSettings(config: SyncClientConfig, options: SyncRequestOptions): SyncCallSettings {
  return {
    timeout: options.timeout === undefined ? config.timeout : checkDuration(options.timeout, "timeout"),
    deadline: options.deadline === undefined ? config.deadline : checkDuration(options.deadline, "deadline"),
    retry: resolveRetry(config.retry, options.retry),
    headers: options.headers === undefined ? config.headers : { ...config.headers, ...lowerCaseKeys(options.headers) },
  };
}

/** The project's one base-URL validator (`@sds/client`'s), its refusal re-thrown as this package's error. */
/** sds-sync's base URL checked with `@sds/client`'s one rule, without its trailing slash. @throws SyncConfigurationError */
export function checkBaseUrl(value: string): string {
  try {
    return parseBaseUrl(value).href.replace(/\/+$/, "");
  } catch (error) {
    if (isConfigurationError(error))
      throw new SyncConfigurationError(
        error.message.replace("such as https://sds.example/api/v1", "such as http://127.0.0.1:8787"),
        "baseUrl",
      );
    throw error;
  }
}

function resolveRetry(base: ResolvedRetry, value: SyncRetryOptions | number | false | undefined): ResolvedRetry {
  if (value === undefined) return base;
  if (value === false) return { ...base, limit: 0 };
  if (typeof value === "number") return { ...base, limit: checkCount(value, "retry") };
  return {
    limit: value.limit === undefined ? base.limit : checkCount(value.limit, "retry.limit"),
    initialDelay:
      value.initialDelay === undefined ? base.initialDelay : checkDelay(value.initialDelay, "retry.initialDelay"),
    maxDelay: value.maxDelay === undefined ? base.maxDelay : checkDelay(value.maxDelay, "retry.maxDelay"),
    maxRetryAfter:
      value.maxRetryAfter === undefined ? base.maxRetryAfter : checkDelay(value.maxRetryAfter, "retry.maxRetryAfter"),
    jitter: value.jitter ?? base.jitter,
  };
}

function checkDuration(value: number | false, option: string): number | false {
  if (value === false) return false;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > maxTimerDelay)
    throw new SyncConfigurationError(
      `\`${option}\` must be a number of milliseconds between 1 and ${maxTimerDelay}, or false; got ${String(value)}.`,
      option,
    );
  return value;
}

function checkDelay(value: number, option: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > maxTimerDelay)
    throw new SyncConfigurationError(
      `\`${option}\` must be a number of milliseconds between 0 and ${maxTimerDelay}; got ${String(value)}.`,
      option,
    );
  return value;
}

function checkCount(value: number, option: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new SyncConfigurationError(`\`${option}\` must be a whole number, 0 or more; got ${String(value)}.`, option);
  return value;
}

function checkValidation(value: SyncValidationMode): SyncValidationMode {
  // Typed, but a JavaScript caller may pass anything.
  const given: string = value;
  if (given !== "loose" && given !== "off")
    throw new SyncConfigurationError(
      `\`validation\` must be "loose" or "off"; got ${JSON.stringify(value)}.`,
      "validation",
    );
  return value;
}

/** The headers with lower-case names. @throws SyncConfigurationError on a header fetch would refuse */
function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  try {
    new Headers(headers);
  } catch (error) {
    // The runtime's message may quote the value, which may be a credential.
    throw new SyncConfigurationError(
      `\`headers\` holds a header fetch refuses (among ${Object.keys(headers).join(", ")}): ${(error as Error).name}.`,
      "headers",
    );
  }
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** Whether this runs in a browser (a `document` exists). */
function isBrowser(): boolean {
  return typeof (globalThis as { document?: unknown }).document !== "undefined";
}
