import ky, { isHTTPError, isNetworkError, isTimeoutError } from "ky";
import type { z } from "zod";
import type { SyncRequestOptions } from "../client-options.ts";
import { createSyncApiError } from "../errors/api-errors.ts";
import {
  SyncAbortedError,
  SyncConnectionError,
  SyncRequestValidationError,
  SyncResponseValidationError,
  SyncTimeoutError,
  type SyncValidationIssue,
} from "../errors/request-errors.ts";
import type { SyncClientError, SyncOperationId, SyncRequestContext } from "../errors/sync-client-error.ts";
import type { SyncClientHooks } from "../hooks.ts";
import { ErrorBody } from "../schemas/error-body.ts";
import { resolveCallSettings, type SyncCallSettings, type SyncClientConfig } from "./resolve-options.ts";

/** One call of one route, as a resource method describes it. */
export interface SyncCall<T> {
  readonly operation: SyncOperationId;
  readonly method: "GET" | "POST" | "DELETE";
  /** The path, without the query. */
  readonly path: string;
  readonly query?: URLSearchParams | undefined;
  /** The request body and the schema it is checked against before it is sent. */
  readonly body?: { readonly value: unknown; readonly schema: z.ZodType } | undefined;
  readonly response: z.ZodType<T>;
  /** Whether sending it twice does what sending it once does: only then is it retried. */
  readonly idempotent: boolean;
  /** Added to the attempt timeout: a long-poll's `wait`, in ms. */
  readonly extraTimeout?: number | undefined;
}

/** A parsed answer and the response it came from. */
export interface SyncAnswer<T> {
  readonly data: T;
  readonly status: number;
  readonly headers: Headers;
}

/** The fields of every hook event. */
function eventBase(context: SyncRequestContext) {
  return { operation: context.operation, method: context.method, url: context.url, attempt: context.attempts };
}

/** The headers as a hook sees them: the token replaced by `[REDACTED]`. */
function redacted(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, name === "authorization" ? "[REDACTED]" : value]),
  );
}

/** Every 5xx, 408 and 429: the statuses worth another attempt. */
const retryableStatuses = [408, 429, ...Array.from({ length: 100 }, (_, index) => 500 + index)];

/**
 * Sends the calls of one client through ky, whose retry loop does the retrying (attempt
 * timeouts, backoff with full jitter, `Retry-After`): the options keep `@sds/client`'s names and
 * defaults. What is ours: the request body checked before sending, a `Retry-After` beyond
 * `maxRetryAfter` thrown at once instead of slept on, only idempotent calls retried, and every
 * failure mapped to this package's error family with the token scrubbed.
 */
export class SyncTransport {
  readonly #config: SyncClientConfig;

  constructor(config: SyncClientConfig) {
    this.#config = config;
  }

  /** The base URL, without a trailing slash. */
  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /** Sends `call` and parses its answer. @throws SyncClientError */
  async request<T>(call: SyncCall<T>, options: SyncRequestOptions = {}): Promise<SyncAnswer<T>> {
    const settings = resolveCallSettings(this.#config, options);
    const path = call.query !== undefined && call.query.size > 0 ? `${call.path}?${call.query.toString()}` : call.path;
    const context: { -readonly [Key in keyof SyncRequestContext]: SyncRequestContext[Key] } = {
      operation: call.operation,
      method: call.method,
      path,
      url: `${this.#config.baseUrl}${path}`,
      attempts: 0,
    };
    const body = call.body === undefined ? undefined : checkBody(call.body, context);
    context.attempts = 1;
    const startedAt = Date.now();
    const pending = ky(context.url, {
      method: call.method,
      headers: settings.headers,
      ...(body === undefined ? {} : { json: body }),
      timeout: settings.timeout === false ? false : settings.timeout + (call.extraTimeout ?? 0),
      ...(settings.deadline === false ? {} : { totalTimeout: settings.deadline }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      throwHttpErrors: true,
      retry: this.#retryOptions(settings, call.idempotent),
      hooks: {
        beforeRequest: [
          () => {
            this.#emit("onRequest", { ...eventBase(context), headers: redacted(settings.headers) });
          },
        ],
        beforeRetry: [
          ({ error }) => {
            const failure = this.#failure(error, { ...context }, settings, { signal: options.signal, elapsed: 0 });
            this.#emit("onRetry", { ...eventBase(context), error: failure });
            context.attempts += 1;
            this.#emit("onRequest", { ...eventBase(context), headers: redacted(settings.headers) });
          },
        ],
        afterResponse: [
          ({ response }) => {
            this.#emit("onResponse", {
              ...eventBase(context),
              status: response.status,
              durationMs: Date.now() - startedAt,
            });
          },
        ],
      },
      fetch: (input, init) => this.#config.fetch(input instanceof Request ? input : new Request(input), init),
    });
    let response: Response;
    let text: string;
    try {
      response = await pending;
      text = await pending.text();
    } catch (error) {
      const failure = this.#failure(error, { ...context }, settings, {
        signal: options.signal,
        elapsed: Date.now() - startedAt,
      });
      this.#emit("onError", { ...eventBase(context), error: failure, durationMs: Date.now() - startedAt });
      throw failure;
    }
    try {
      return {
        data: this.#parse(call.response, text, response.status, { ...context }),
        status: response.status,
        headers: response.headers,
      };
    } catch (error) {
      if (error instanceof SyncResponseValidationError)
        this.#emit("onError", { ...eventBase(context), error, durationMs: Date.now() - startedAt });
      throw error;
    }
  }

  #emit<Name extends keyof SyncClientHooks>(
    name: Name,
    event: Parameters<NonNullable<SyncClientHooks[Name]>>[0],
  ): void {
    const hook = this.#config.hooks[name] as ((event: unknown) => void) | undefined;
    try {
      hook?.(event);
    } catch {
      // A broken logger must not fail the request it was observing.
    }
  }

  #retryOptions(settings: SyncCallSettings, idempotent: boolean) {
    const { retry } = settings;
    return {
      limit: retry.limit,
      methods: idempotent ? ["get" as const, "post" as const, "delete" as const] : [],
      statusCodes: retryableStatuses,
      afterStatusCodes: [429, 503],
      maxRetryAfter: retry.maxRetryAfter,
      delay: (attempt: number) => Math.min(retry.maxDelay, retry.initialDelay * 2 ** (attempt - 1)),
      jitter: retry.jitter,
      retryOnTimeout: true,
      // A wait longer than the caller accepts is the answer, not something to sleep through.
      shouldRetry: ({ error }: { error: Error }) => {
        if (!isHTTPError(error)) return undefined;
        const after = parseRetryAfter(error.response.headers.get("retry-after"), Date.now());
        return after !== undefined && after > retry.maxRetryAfter ? false : undefined;
      },
    };
  }

  /** The body of a success answer, checked. @throws SyncResponseValidationError */
  #parse<T>(schema: z.ZodType<T>, text: string, status: number, request: SyncRequestContext): T {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SyncResponseValidationError(
        `${request.method} ${request.path} answered HTTP ${status} with a body that is not JSON: is ${this.#config.baseUrl} sds-sync?`,
        { request, status, issues: [{ path: [], code: "invalid_json", message: "the body is not JSON" }] },
      );
    }
    if (this.#config.validation === "off") return json as T;
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issues = toIssues(parsed.error.issues);
    throw new SyncResponseValidationError(
      `${request.method} ${request.path} answered HTTP ${status} with a body that does not match its schema (${issues.length} ${issues.length === 1 ? "issue" : "issues"}): ${summarize(issues)}`,
      { request, status, issues },
    );
  }

  /** What ky threw, as this package's error. */
  #failure(
    error: unknown,
    request: SyncRequestContext,
    settings: SyncCallSettings,
    call: { readonly signal: AbortSignal | undefined; readonly elapsed: number },
  ): SyncClientError {
    const { signal } = call;
    const scrub = (text: string) =>
      this.#config.secrets.reduce((result, secret) => result.replaceAll(secret, "[REDACTED]"), text);
    if (signal?.aborted === true)
      return new SyncAbortedError(`${request.method} ${request.path} was aborted by the caller`, {
        request,
        cause: signal.reason,
      });
    if (isHTTPError(error)) {
      const parsed = ErrorBody.safeParse(error.data);
      return createSyncApiError({
        request,
        status: error.response.status,
        code: parsed.success ? scrub(parsed.data.error.code) : undefined,
        serviceMessage: parsed.success ? scrub(parsed.data.error.message) : undefined,
        retryAfter: parseRetryAfter(error.response.headers.get("retry-after"), Date.now()),
        body: error.data,
      });
    }
    if (isTimeoutError(error)) {
      const deadline = settings.deadline;
      // ky throws the same TimeoutError for both limits: the deadline is the one that ran out when the call's time is up.
      const phase = deadline !== false && call.elapsed >= deadline ? "deadline" : "attempt";
      const limit = phase === "deadline" ? Number(deadline) : settings.timeout === false ? 0 : settings.timeout;
      return new SyncTimeoutError(
        phase === "deadline"
          ? `${request.method} ${request.path} ran past its deadline of ${limit} ms (${request.attempts} attempts)`
          : `${request.method} ${request.path} timed out: no complete answer within ${limit} ms (attempt ${request.attempts})`,
        { request, phase, timeout: limit },
      );
    }
    // ky's wrapper holds the Request, and so the token header: only the runtime's error is kept.
    const cause = isNetworkError(error) ? error.cause : error;
    const reason = describeCause(cause);
    return new SyncConnectionError(
      `${request.method} ${request.path} failed: no answer from ${this.#config.baseUrl}${reason === undefined ? "" : ` (${scrub(reason)})`}`,
      { request, cause },
    );
  }
}

/** The request body, checked against its schema. @throws SyncRequestValidationError */
function checkBody(body: NonNullable<SyncCall<unknown>["body"]>, request: SyncRequestContext): unknown {
  const parsed = body.schema.safeParse(body.value);
  if (parsed.success) return parsed.data;
  const issues = toIssues(parsed.error.issues);
  throw new SyncRequestValidationError(
    `${request.method} ${request.path} was not sent: the body is invalid: ${summarize(issues)}`,
    {
      request,
      issues,
    },
  );
}

function toIssues(issues: readonly z.core.$ZodIssue[]): SyncValidationIssue[] {
  return issues.map((issue) => ({ path: [...issue.path], message: issue.message, code: issue.code }));
}

/** `outcomes.0.token: must not be empty; …` (the first five). */
function summarize(issues: readonly SyncValidationIssue[]): string {
  const shown = issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length === 0 ? "body" : issue.path.map(String).join(".")}: ${issue.message}`);
  return `${shown.join("; ")}${issues.length > 5 ? `; and ${issues.length - 5} more` : ""}`;
}

/** The runtime's reason for a failed fetch: its cause's code (`ECONNREFUSED`) or message. */
function describeCause(cause: unknown): string | undefined {
  if (!(cause instanceof Error)) return undefined;
  const inner = cause.cause;
  const code = (inner as { code?: unknown } | undefined)?.code ?? (cause as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return inner instanceof Error ? inner.message : cause.message;
}

/**
 * A `Retry-After` header as milliseconds: delay-seconds or an HTTP date (counted from `now`, a
 * past date meaning 0); `undefined` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
