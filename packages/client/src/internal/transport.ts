import { expandPath, operations, type OperationDefinition, type OperationId } from "@sds/schemas";
import ky, { isNetworkError as isKyNetworkError, isTimeoutError as isKyTimeoutError, type KyInstance } from "ky";
import { ApiPromise, type ResponseInfo, type WithResponse } from "../api-promise.ts";
import type { RequestOptions } from "../client-options.ts";
import type { ApiError } from "../errors/api-error.ts";
import { createApiError } from "../errors/create-api-error.ts";
import { SdsError, type RequestContext } from "../errors/sds-error.ts";
import { ConnectionError, RequestAbortedError, TimeoutError } from "../errors/transport-errors.ts";
import { RequestValidationError, ResponseValidationError, type ValidationIssue } from "../errors/validation-errors.ts";
import type { ClientHooks } from "../hooks.ts";
import { raceWithSignal } from "./abort.ts";
import { CallScope } from "./call-scope.ts";
import { ConcurrencyLimiter } from "./concurrency-limiter.ts";
import { RateLimiter } from "./rate-limiter.ts";
import { isCredentialHeader, redactHeaders, scrubSecrets } from "./redact.ts";
import { resolveCallSettings, type CallSettings, type ClientConfig } from "./resolve-options.ts";
import { findRequestId, parseBody, readEnvelopeError } from "./response-body.ts";
import { isRetryableStatus, parseRetryAfter, planRetry } from "./retry-policy.ts";
import { summarizeIssues, toValidationIssues, type ResponseParser } from "./validate-response.ts";

/** One call of one operation, as a resource method describes it. */
export interface OperationCall<T> {
  readonly operation: OperationId;
  readonly pathParams?: Readonly<Record<string, string | number>>;
  /** The request body; required (and validated before sending) for operations that take one. */
  readonly body?: unknown;
  readonly parse: ResponseParser<T>;
}

/** A response worth parsing: 2xx, JSON, no `hasError`. */
interface AcceptedResponse {
  readonly kind: "accepted";
  readonly status: number;
  readonly headers: Headers;
  readonly requestId: string | undefined;
  readonly body: unknown;
}

/** An attempt that failed, and whether another attempt could do better. */
interface FailedAttempt {
  readonly kind: "failed";
  readonly error: SdsError;
  readonly retryable: boolean;
  readonly apiError?: ApiError;
}

/** What one call needs while it runs. */
interface CallState {
  readonly context: { -readonly [Key in keyof RequestContext]: RequestContext[Key] };
  readonly settings: CallSettings;
  readonly scope: CallScope;
  readonly startedAt: number;
  /** Values to scrub from any outside text: the key and other credential headers of this call. */
  readonly secrets: readonly string[];
}

/**
 * Runs every call of one client: validates the request, waits for a concurrency slot and the
 * rate limit, sends each attempt with ky, maps failures to the error family, retries what is
 * worth retrying, validates the response and reports to the hooks.
 *
 * ky sends each attempt (URL, headers, JSON body, per-attempt timeout, network-error
 * detection); the retry loop is this class's own, because the client must release the
 * concurrency slot and take a fresh rate-limit token between attempts, refuse a `Retry-After`
 * beyond the cap or the deadline instead of sleeping into a timeout, tell `onRetry` the delay,
 * and run on an injectable clock.
 */
export class Transport {
  readonly #config: ClientConfig;
  readonly #http: KyInstance;
  readonly #concurrency: ConcurrencyLimiter;
  readonly #rateLimiter: RateLimiter | undefined;
  /** Whether any hook listens: events are only built for someone. */
  readonly #observed: boolean;

  constructor(config: ClientConfig) {
    this.#config = config;
    this.#observed = config.hooks.length > 0;
    const userFetch = config.fetch;
    this.#http = ky.create({
      retry: 0,
      throwHttpErrors: false,
      fetch: (input, init) => userFetch(input instanceof Request ? input : new Request(input), init),
    });
    this.#concurrency = new ConcurrencyLimiter(config.maxConcurrency);
    this.#rateLimiter = config.rateLimit && new RateLimiter(config.rateLimit, config.clock);
  }

  /** The base URL, without a trailing slash. */
  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /** Starts a call; the returned promise also gives access to the response info. */
  request<T>(call: OperationCall<T>, options: RequestOptions = {}): ApiPromise<T> {
    return new ApiPromise(this.#run(call, options));
  }

  async #run<T>(call: OperationCall<T>, options: RequestOptions): Promise<WithResponse<T>> {
    const { method } = operations[call.operation];
    const pathTemplate = this.#config.paths[call.operation];
    const pathIssues = checkPathParams(operations[call.operation].pathParams, call.pathParams ?? {});
    const path = pathIssues.length === 0 ? expandPath(pathTemplate, call.pathParams ?? {}) : pathTemplate;
    const context = { operation: call.operation, method, path, url: `${this.#config.baseUrl}${path}`, attempts: 0 };
    if (pathIssues.length > 0) {
      throw new RequestValidationError(`${method} ${pathTemplate} was not sent: ${summarizeIssues(pathIssues)}`, { request: { ...context }, issues: pathIssues });
    }
    const body = this.#checkBody(call, context);
    const settings = resolveCallSettings(this.#config, options);
    const state: CallState = {
      context,
      settings,
      scope: new CallScope(this.#config.clock, options.signal, settings.deadline),
      startedAt: this.#config.clock.now(),
      secrets: credentialsOf(settings.headers),
    };
    try {
      return await this.#attemptUntilDone(call, body, state);
    } catch (error) {
      if (error instanceof SdsError) this.#emit("onError", { ...eventBase(state), error, durationMs: this.#elapsed(state) });
      throw error;
    } finally {
      state.scope.dispose();
    }
  }

  async #attemptUntilDone<T>(call: OperationCall<T>, body: unknown, state: CallState): Promise<WithResponse<T>> {
    const { clock } = this.#config;
    for (;;) {
      const outcome = await this.#attempt(body, state);
      if (outcome.kind === "accepted") return this.#accept(call, outcome, state);
      const plan = outcome.retryable
        ? planRetry({ attempts: state.context.attempts, retry: state.settings.retry, apiError: outcome.apiError, now: clock.now(), deadlineAt: state.scope.deadlineAt })
        : undefined;
      if (plan === undefined) throw outcome.error;
      this.#emit("onRetry", { ...eventBase(state), error: outcome.error, delayMs: plan.delayMs, fromRetryAfter: plan.fromRetryAfter });
      try {
        await clock.sleep(plan.delayMs, state.scope.signal);
      } catch (error) {
        throw this.#interruptionError(state) ?? error;
      }
    }
  }

  /** One attempt: a concurrency slot, a rate-limit token, the request, the body. */
  async #attempt(body: unknown, state: CallState): Promise<AcceptedResponse | FailedAttempt> {
    const { scope, context, settings } = state;
    let release: () => void;
    try {
      release = await this.#concurrency.acquire(scope.signal);
    } catch (error) {
      throw this.#interruptionError(state) ?? error;
    }
    try {
      try {
        await this.#rateLimiter?.acquire(scope.signal);
      } catch (error) {
        throw this.#interruptionError(state) ?? error;
      }
      context.attempts++;
      if (this.#observed) this.#emit("onRequest", { ...eventBase(state), headers: redactHeaders(new Headers(settings.headers)) });
      const pending = this.#http(context.url, {
        method: context.method,
        headers: settings.headers,
        timeout: settings.timeout,
        ...(scope.signal === undefined ? {} : { signal: scope.signal }),
        ...(body === undefined ? {} : { json: body }),
      });
      let response: Response;
      let text: string;
      try {
        response = await raceWithSignal(pending, scope.signal);
        text = await raceWithSignal(pending.text(), scope.signal);
      } catch (error) {
        return this.#failedWithoutResponse(error, state);
      }
      return this.#judgeResponse(response, text, state);
    } finally {
      release();
    }
  }

  /** Sorts a response into accepted or failed (an error status, `hasError: true`, not JSON). */
  #judgeResponse(response: Response, text: string, state: CallState): AcceptedResponse | FailedAttempt {
    const { status, headers } = response;
    const requestId = findRequestId(headers);
    if (this.#observed) this.#emit("onResponse", { ...eventBase(state), status, durationMs: this.#elapsed(state), requestId });
    const parsed = parseBody(text);
    const body = parsed.json ? parsed.value : parsed.text;
    const envelope = readEnvelopeError(body);
    const success = status >= 200 && status <= 299;
    if (!success || envelope.hasError) {
      const apiError = createApiError({
        request: { ...state.context },
        status,
        errorCode: envelope.errorCode === undefined ? undefined : scrubSecrets(envelope.errorCode, state.secrets),
        messages: envelope.messages.map((message) => scrubSecrets(message, state.secrets)),
        requestId,
        retryAfter: parseRetryAfter(headers.get("retry-after"), this.#config.clock.now()),
        headers,
        body,
      });
      return { kind: "failed", error: apiError, apiError, retryable: !success && isRetryableStatus(status) };
    }
    if (!parsed.json) {
      // A complete success response that is not JSON is most likely cut short by a proxy:
      // worth another attempt, and reported as a validation failure when none is left.
      const issues: ValidationIssue[] = [{ path: [], code: "invalid_json", message: parsed.reason }];
      const error = new ResponseValidationError(`${state.context.method} ${state.context.path} returned HTTP ${status}, but ${parsed.reason}`, {
        request: { ...state.context },
        status,
        issues,
        body,
      });
      return { kind: "failed", error, retryable: true };
    }
    return { kind: "accepted", status, headers, requestId, body };
  }

  /** Validates an accepted body and builds the result with its response info. */
  #accept<T>(call: OperationCall<T>, accepted: AcceptedResponse, state: CallState): WithResponse<T> {
    const { context } = state;
    const outcome = call.parse(accepted.body, state.settings.validation);
    if (!outcome.success) {
      const hint = call.operation === "listSurveys" ? " (surveys.listItemwise() keeps the valid surveys and reports the others)" : "";
      throw new ResponseValidationError(
        `${context.method} ${context.path} returned a body that does not match its schema (${outcome.issues.length} ${outcome.issues.length === 1 ? "issue" : "issues"}): ${scrubSecrets(summarizeIssues(outcome.issues), state.secrets)}${hint}`,
        { request: { ...context }, status: accepted.status, issues: outcome.issues, body: accepted.body },
      );
    }
    const response: ResponseInfo = {
      status: accepted.status,
      headers: accepted.headers,
      requestId: accepted.requestId,
      durationMs: this.#elapsed(state),
      attempts: context.attempts,
      operation: context.operation,
      method: context.method,
      url: context.url,
    };
    return { data: outcome.data, response };
  }

  /** Maps what an attempt threw (no usable response) to the error family. */
  #failedWithoutResponse(error: unknown, state: CallState): FailedAttempt {
    const interruption = this.#interruptionError(state);
    if (interruption) return { kind: "failed", error: interruption, retryable: false };
    const { context, settings } = state;
    const request = { ...context };
    if (isKyTimeoutError(error)) {
      const limit = settings.timeout === false ? 0 : settings.timeout;
      const message = `${context.method} ${context.path} timed out: no complete response within ${limit} ms (attempt ${context.attempts})`;
      return { kind: "failed", error: new TimeoutError(message, { request, phase: "attempt", timeout: limit }), retryable: true };
    }
    // ky wraps the runtime's network errors; its own wrapper holds the Request (and so the key
    // header), so only the runtime's error is kept as the cause.
    const cause = isKyNetworkError(error) ? error.cause : error;
    // Fetch rejects with a TypeError for every network failure, also mid-body ("terminated").
    const retryable = isKyNetworkError(error) || error instanceof TypeError;
    const message = `${context.method} ${context.path} failed: no response (${scrubSecrets(describeCause(cause), state.secrets)})`;
    return { kind: "failed", error: new ConnectionError(message, request, { cause }), retryable };
  }

  /** The error for a call cut short by the caller's abort or the deadline, if it was. */
  #interruptionError(state: CallState): SdsError | undefined {
    const { context, scope, settings } = state;
    const interruption = scope.interruption();
    if (interruption === "aborted") {
      return new RequestAbortedError(`${context.method} ${context.path} was aborted by the caller`, { ...context }, { cause: scope.abortReason });
    }
    if (interruption === "deadline") {
      const deadline = settings.deadline === false ? 0 : settings.deadline;
      return new TimeoutError(`${context.method} ${context.path} ran past its deadline of ${deadline} ms (${context.attempts} attempts)`, {
        request: { ...context },
        phase: "deadline",
        timeout: deadline,
      });
    }
    return undefined;
  }

  #checkBody(call: OperationCall<unknown>, context: RequestContext): unknown {
    const operation: OperationDefinition = operations[call.operation];
    const schema = operation.body;
    if (schema === undefined) return undefined;
    const result = schema.safeParse(call.body);
    if (result.success) return result.data;
    const issues = call.body === undefined ? [{ path: [], code: "invalid_type", message: "the request body is required" }] : toValidationIssues(result.error.issues);
    throw new RequestValidationError(`${context.method} ${context.path} was not sent: the body is invalid: ${summarizeIssues(issues)}`, { request: context, issues });
  }

  #elapsed(state: CallState): number {
    return this.#config.clock.now() - state.startedAt;
  }

  #emit<Name extends keyof ClientHooks>(name: Name, event: Parameters<NonNullable<ClientHooks[Name]>>[0]): void {
    for (const hooks of this.#config.hooks) {
      const hook = hooks[name] as ((event: unknown) => void) | undefined;
      try {
        hook?.(event);
      } catch {
        // A broken logger must not fail the request it was observing.
      }
    }
  }
}

function eventBase(state: CallState): { operation: OperationId; method: "GET" | "PUT"; url: string; attempt: number } {
  const { operation, method, url, attempts } = state.context;
  return { operation, method, url, attempt: attempts };
}

const credentialCache = new WeakMap<object, readonly string[]>();

/** The values of the credential headers, to scrub from outside text (cached per headers object). */
function credentialsOf(headers: Readonly<Record<string, string>>): readonly string[] {
  let credentials = credentialCache.get(headers);
  if (credentials === undefined) {
    credentials = Object.entries(headers)
      .filter(([name]) => isCredentialHeader(name))
      .map(([, value]) => value);
    credentialCache.set(headers, credentials);
  }
  return credentials;
}

/** Each path parameter must be a non-empty string or a safe integer. */
function checkPathParams(names: readonly string[], values: Readonly<Record<string, string | number>>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of names) {
    const value = values[name] as unknown;
    const valid = (typeof value === "number" && Number.isSafeInteger(value)) || (typeof value === "string" && value.trim() !== "");
    if (!valid) issues.push({ path: [name], code: "invalid_type", message: `${name} must be an integer or a non-empty string, got ${describeValue(value)}` });
  }
  return issues;
}

function describeValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  return value === null ? "null" : typeof value;
}

/** `fetch failed: connect ECONNREFUSED 127.0.0.1:9` — an error's message and its cause's. */
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : "";
  return `${cause.message}${inner}`;
}
