import { operationIds, operations, type OperationId } from "@sds/schemas";
import { systemClock, type Clock } from "../clock.ts";
import type {
  ClientOptions,
  FetchFunction,
  RateLimitOptions,
  RequestOptions,
  RetryOptions,
  ValidationMode,
} from "../client-options.ts";
import { parseBaseUrl } from "../base-url.ts";
import { operationPathProblem } from "../operation-path.ts";
import { ConfigurationError } from "../errors/configuration-error.ts";
import type { ClientHooks } from "../hooks.ts";
import { readEnvironmentVariable } from "./env.ts";
import { loggerHooks } from "./logger-hooks.ts";
import { isCredentialHeader } from "./redact.ts";
import { defaultRetryOptions, type ResolvedRetryOptions } from "./retry-policy.ts";
import { clientVersion } from "./version.ts";

/** Client options with defaults applied and every value checked. */
export interface ClientConfig {
  /** Without a trailing slash. */
  readonly baseUrl: string;
  readonly fetch: FetchFunction;
  readonly timeout: number | false;
  readonly deadline: number | false;
  readonly retry: ResolvedRetryOptions;
  readonly validation: ValidationMode;
  readonly maxConcurrency: number;
  readonly rateLimit: { readonly requestsPerSecond: number; readonly burst: number } | undefined;
  readonly paths: Readonly<Record<OperationId, string>>;
  readonly hooks: readonly ClientHooks[];
  /** Headers of every request, the API key included. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The values to scrub from any outside text: the API key and the client's other credential
   * headers, registered here, where they enter, and nowhere else.
   */
  readonly secrets: readonly string[];
  readonly clock: Clock;
}

/** The settings of one call: the client's, overridden by the call's options. */
export interface CallSettings {
  readonly timeout: number | false;
  readonly deadline: number | false;
  readonly retry: ResolvedRetryOptions;
  readonly validation: ValidationMode;
  readonly headers: Readonly<Record<string, string>>;
  /** The client's secrets, plus the credential headers this call adds (another tenant's key, say). */
  readonly secrets: readonly string[];
}

/** The longest delay `setTimeout` can wait. */
const maxTimerDelay = 2_147_483_647;
const validationModes: readonly ValidationMode[] = ["loose", "strict", "off"];

/** Checks `options`, fills in defaults and the environment fallbacks. @throws ConfigurationError */
export function resolveClientOptions(options: ClientOptions): ClientConfig {
  const env = options.env;
  const apiKey = options.apiKey ?? readEnvironmentVariable("SDS_API_KEY", env);
  if (apiKey === undefined || apiKey.trim() === "") {
    throw new ConfigurationError("Missing API key: pass `apiKey` to createClient() or set SDS_API_KEY.", "apiKey");
  }
  const baseUrl = resolveBaseUrl(options.baseUrl ?? readEnvironmentVariable("SDS_BASE_URL", env));
  const extraHeaders = lowerCaseKeys(options.headers ?? {});
  const userFetch = options.fetch;
  const hooks = [options.hooks, options.logger && loggerHooks(options.logger)].filter((hook) => hook !== undefined);
  return {
    baseUrl,
    // Looked up per call, so a `fetch` patched after construction (by a test tool) is used.
    fetch: userFetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeout: checkDuration(options.timeout ?? 30_000, "timeout"),
    deadline: checkDuration(options.deadline ?? false, "deadline"),
    retry: resolveRetry(defaultRetryOptions, options.retry, "retry"),
    validation: checkValidationMode(options.validation ?? "loose", "validation"),
    maxConcurrency: checkConcurrency(options.maxConcurrency ?? 8),
    rateLimit: options.rateLimit && checkRateLimit(options.rateLimit),
    paths: resolvePaths(options.paths ?? {}),
    hooks,
    headers: {
      accept: "application/json",
      ...(options.userAgent !== undefined || !isBrowser()
        ? { "user-agent": options.userAgent ?? `@sds/client/${clientVersion}` }
        : {}),
      ...extraHeaders,
      "eq-partner-access-key": apiKey,
    },
    secrets: [apiKey, ...credentialValues(extraHeaders)],
    clock: options.clock ?? systemClock,
  };
}

/** The settings of one call. @throws ConfigurationError on an invalid call option */
export function resolveCallSettings(config: ClientConfig, options: RequestOptions): CallSettings {
  const callHeaders = options.headers === undefined ? undefined : lowerCaseKeys(options.headers);
  const callSecrets = callHeaders === undefined ? [] : credentialValues(callHeaders);
  return {
    timeout: options.timeout === undefined ? config.timeout : checkDuration(options.timeout, "timeout"),
    deadline: options.deadline === undefined ? config.deadline : checkDuration(options.deadline, "deadline"),
    retry: resolveRetry(config.retry, options.retry, "retry"),
    validation:
      options.validation === undefined ? config.validation : checkValidationMode(options.validation, "validation"),
    // Call headers win, even over the API key: a multi-tenant caller may send another key.
    headers: callHeaders === undefined ? config.headers : { ...config.headers, ...callHeaders },
    secrets: callSecrets.length === 0 ? config.secrets : [...config.secrets, ...callSecrets],
  };
}

function resolveBaseUrl(value: string | undefined): string {
  if (value === undefined || value.trim() === "") {
    throw new ConfigurationError(
      "Missing base URL: pass `baseUrl` (ending in /api/v1) to createClient() or set SDS_BASE_URL.",
      "baseUrl",
    );
  }
  return parseBaseUrl(value).href.replace(/\/+$/, "");
}

function resolveRetry(
  base: ResolvedRetryOptions,
  value: RetryOptions | number | false | undefined,
  option: string,
): ResolvedRetryOptions {
  if (value === undefined) return base;
  if (value === false) return { ...base, limit: 0 };
  if (typeof value === "number") return { ...base, limit: checkRetryLimit(value, option) };
  return {
    limit: value.limit === undefined ? base.limit : checkRetryLimit(value.limit, `${option}.limit`),
    initialDelay:
      value.initialDelay === undefined ? base.initialDelay : checkDelay(value.initialDelay, `${option}.initialDelay`),
    maxDelay: value.maxDelay === undefined ? base.maxDelay : checkDelay(value.maxDelay, `${option}.maxDelay`),
    maxRetryAfter:
      value.maxRetryAfter === undefined
        ? base.maxRetryAfter
        : checkDelay(value.maxRetryAfter, `${option}.maxRetryAfter`),
    jitter: value.jitter ?? base.jitter,
  };
}

function resolvePaths(overrides: Readonly<Partial<Record<string, string>>>): Record<OperationId, string> {
  const paths = {} as Record<OperationId, string>;
  for (const id of operationIds) paths[id] = operations[id].path;
  for (const [id, path] of Object.entries(overrides)) {
    if (path === undefined) continue;
    const problem = operationPathProblem(id, path);
    if (problem !== undefined) {
      throw new ConfigurationError(
        `Invalid \`paths.${id}\` ${JSON.stringify(path)}: ${problem.message}.`,
        `paths.${id}`,
      );
    }
    paths[id as OperationId] = path;
  }
  return paths;
}

function checkDuration(value: number | false, option: string): number | false {
  if (value === false) return false;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > maxTimerDelay) {
    throw new ConfigurationError(
      `\`${option}\` must be a number of milliseconds between 1 and ${maxTimerDelay}, or false; got ${String(value)}.`,
      option,
    );
  }
  return value;
}

function checkDelay(value: number, option: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > maxTimerDelay) {
    throw new ConfigurationError(
      `\`${option}\` must be a number of milliseconds between 0 and ${maxTimerDelay}; got ${String(value)}.`,
      option,
    );
  }
  return value;
}

function checkRetryLimit(value: number, option: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ConfigurationError(
      `\`${option}\` must be a whole number of retries, 0 or more; got ${String(value)}.`,
      option,
    );
  }
  return value;
}

function checkValidationMode(value: ValidationMode, option: string): ValidationMode {
  if (!validationModes.includes(value)) {
    throw new ConfigurationError(
      `\`${option}\` must be one of ${validationModes.join(", ")}; got ${JSON.stringify(value)}.`,
      option,
    );
  }
  return value;
}

function checkConcurrency(value: number): number {
  if (value !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(value) || value < 1)) {
    throw new ConfigurationError(
      `\`maxConcurrency\` must be a whole number, 1 or more, or Infinity; got ${String(value)}.`,
      "maxConcurrency",
    );
  }
  return value;
}

function checkRateLimit(value: RateLimitOptions): { requestsPerSecond: number; burst: number } {
  const { requestsPerSecond, burst = 1 } = value;
  if (typeof requestsPerSecond !== "number" || !Number.isFinite(requestsPerSecond) || requestsPerSecond <= 0) {
    throw new ConfigurationError(
      `\`rateLimit.requestsPerSecond\` must be a number above 0; got ${String(requestsPerSecond)}.`,
      "rateLimit.requestsPerSecond",
    );
  }
  if (!Number.isSafeInteger(burst) || burst < 1) {
    throw new ConfigurationError(
      `\`rateLimit.burst\` must be a whole number, 1 or more; got ${String(burst)}.`,
      "rateLimit.burst",
    );
  }
  return { requestsPerSecond, burst };
}

/** The headers with lower-case names. @throws ConfigurationError on a name or value fetch would refuse */
function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  try {
    new Headers(headers);
  } catch (error) {
    // The runtime's message quotes the offending value, which may be a credential.
    const names = Object.keys(headers).join(", ");
    throw new ConfigurationError(
      `\`headers\` holds a header fetch refuses (among ${names}): ${(error as Error).name}.`,
      "headers",
    );
  }
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The values of the credential headers among `headers` (lower-case names). */
function credentialValues(headers: Readonly<Record<string, string>>): string[] {
  return Object.entries(headers)
    .filter(([name]) => isCredentialHeader(name))
    .map(([, value]) => value);
}

/**
 * In a browser a custom `User-Agent` is at best ignored and at worst fails the CORS preflight,
 * so it is only sent there when the caller asks for it.
 */
function isBrowser(): boolean {
  return typeof (globalThis as { document?: unknown }).document !== "undefined";
}
