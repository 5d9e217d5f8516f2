import { expandPath, operations, type OperationDefinition, type OperationId } from "@sds/schemas";
import ky, { isNetworkError as isKyNetworkError, isTimeoutError as isKyTimeoutError, type KyInstance } from "ky";
import { ApiPromise, type ResponseInfo, type WithResponse } from "../api-promise.ts";
import type { RequestOptions } from "../client-options.ts";
import { createApiError } from "../errors/create-api-error.ts";
import { SdsError, type RequestContext } from "../errors/sds-error.ts";
import { ConnectionError, RequestAbortedError, TimeoutError } from "../errors/transport-errors.ts";
import { RequestValidationError, ResponseValidationError, type ValidationIssue } from "../errors/validation-errors.ts";
import type { ClientHooks } from "../hooks.ts";
import { raceWithSignal } from "./abort.ts";
import { CallScope } from "./call-scope.ts";
import { ConcurrencyLimiter } from "./concurrency-limiter.ts";
import { JsonScanError } from "./json-list-scanner.ts";
import { BodyIdleTimeoutError, ListBodyReader } from "./list-body-reader.ts";
import { RateLimiter } from "./rate-limiter.ts";
import { redactHeaders, scrubSecrets } from "./redact.ts";
import { resolveCallSettings, type ClientConfig } from "./resolve-options.ts";
import { findRequestId, parseBody, readEnvelopeError } from "./response-body.ts";
import { isRetryableStatus, parseRetryAfter, planRetry } from "./retry-policy.ts";
import type { AcceptedResponse, CallState, FailedAttempt, ListStreamCall, OperationCall, SentAttempt } from "./call-types.ts";
import { checkPathParams, describeCause } from "./request-checks.ts";
import { summarizeIssues, toValidationIssues } from "./validate-response.ts";

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
 *
 * At a little over 400 lines this file is longer than the house rule: the whole-body call and
 * the streamed list share one attempt, retry, error-mapping and hook machinery, which is
 * private to this class; the pieces without that need live beside it (`call-types.ts`,
 * `request-checks.ts`, `list-body-reader.ts`, `json-list-scanner.ts`).
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

  /**
   * Starts a call whose response is one JSON object with one long list, and yields the list's
   * elements, each checked by `call.parseItem`, as the body arrives (in batches: those one chunk
   * of the body completed, which spares an async step per element); returns the other fields and
   * the response info once the body is complete. The request is sent at the first `next()`.
   *
   * Failures follow the other calls (same errors, retries, hooks), with two differences: an
   * attempt is retried only while nothing has been yielded, and an attempt timeout covers the
   * response headers and then each wait for the next chunk (the consumer's time does not count).
   * A `hasError: true` read after elements were yielded is thrown at the end. The concurrency
   * slot is held until the body is read or the consumer stops.
   */
  async *streamList<Item, Envelope>(call: ListStreamCall<Item, Envelope>, options: RequestOptions = {}): AsyncGenerator<readonly Item[], WithResponse<Envelope>, undefined> {
    const { state } = this.#begin(call, options);
    const progress = { yielded: false };
    let settled = false;
    try {
      for (;;) {
        const outcome = yield* this.#streamAttempt(call, state, progress);
        if (outcome.kind === "accepted") {
          settled = true;
          return outcome.result;
        }
        await this.#retryOrThrow(progress.yielded ? { ...outcome, retryable: false } : outcome, state);
      }
    } catch (error) {
      settled = true;
      if (error instanceof SdsError) this.#emit("onError", { ...eventBase(state), error, durationMs: this.#elapsed(state) });
      throw error;
    } finally {
      state.scope.dispose();
      if (!settled) call.onStopped?.({ ...state.context });
    }
  }

  async #run<T>(call: OperationCall<T>, options: RequestOptions): Promise<WithResponse<T>> {
    const { state, body } = this.#begin(call, options);
    try {
      return await this.#attemptUntilDone(call, body, state);
    } catch (error) {
      if (error instanceof SdsError) this.#emit("onError", { ...eventBase(state), error, durationMs: this.#elapsed(state) });
      throw error;
    } finally {
      state.scope.dispose();
    }
  }

  /** Checks the path parameters and the body, and sets up the call's state. Throws RequestValidationError. */
  #begin(call: Pick<OperationCall<unknown>, "operation" | "pathParams" | "body">, options: RequestOptions): { state: CallState; body: unknown } {
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
      secrets: settings.secrets,
    };
    return { state, body };
  }

  async #attemptUntilDone<T>(call: OperationCall<T>, body: unknown, state: CallState): Promise<WithResponse<T>> {
    for (;;) {
      const outcome = await this.#attempt(body, state);
      if (outcome.kind === "accepted") return this.#accept(call, outcome, state);
      await this.#retryOrThrow(outcome, state);
    }
  }

  /** Waits before the next attempt, or throws the attempt's error when no retry is due. */
  async #retryOrThrow(outcome: FailedAttempt, state: CallState): Promise<void> {
    const { clock } = this.#config;
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

  /** One attempt: a concurrency slot, a rate-limit token, the request, the body. */
  async #attempt(body: unknown, state: CallState): Promise<AcceptedResponse | FailedAttempt> {
    const sent = await this.#send(body, state);
    if (sent.kind === "failed") return sent;
    try {
      let text: string;
      try {
        text = await raceWithSignal(sent.pending.text(), state.scope.signal);
      } catch (error) {
        return this.#failedWithoutResponse(error, state);
      }
      return this.#judgeResponse(sent.response, text, state);
    } finally {
      sent.release();
    }
  }

  /**
   * One attempt of a list read incrementally: yields the checked elements as chunks complete
   * them; returns the envelope and response info, or the failure. `progress.yielded` records
   * whether anything reached the consumer (after which no retry is possible).
   */
  async *#streamAttempt<Item, Envelope>(
    call: ListStreamCall<Item, Envelope>,
    state: CallState,
    progress: { yielded: boolean },
  ): AsyncGenerator<readonly Item[], { kind: "accepted"; result: WithResponse<Envelope> } | FailedAttempt, undefined> {
    const sent = await this.#send(undefined, state);
    if (sent.kind === "failed") return sent;
    const { response } = sent;
    const { scope, settings } = state;
    let reader: ListBodyReader | undefined;
    try {
      if (response.status < 200 || response.status > 299) {
        // An error body is small and read whole, as for any other call.
        let text: string;
        try {
          text = await raceWithSignal(sent.pending.text(), scope.signal);
        } catch (error) {
          return this.#failedWithoutResponse(error, state);
        }
        const judged = this.#judgeResponse(response, text, state);
        if (judged.kind === "failed") return judged;
      }
      const requestId = findRequestId(response.headers);
      if (this.#observed) this.#emit("onResponse", { ...eventBase(state), status: response.status, durationMs: this.#elapsed(state), requestId });
      reader = new ListBodyReader(response.body, { listKey: call.listKey, signal: scope.signal, idleTimeout: settings.timeout });
      for (;;) {
        let items;
        try {
          items = await reader.read();
        } catch (error) {
          if (reader.hasError) break; // the body said it is an error; what follows does not matter
          return this.#failedReadingList(error, response.status, reader, state);
        }
        if (items === undefined) break;
        if (items.length === 0) continue;
        progress.yielded = true;
        yield items.map((item) => call.parseItem(item.value, item.index, settings.validation));
      }
      const fields = reader.fields;
      if (reader.hasError) return this.#apiErrorOf(response, fields, state);
      const envelope = call.parseEnvelope(reader.listSeen ? { ...fields, [call.listKey]: [] } : fields, settings.validation);
      if (!envelope.success) return { kind: "failed", error: this.#schemaMismatch("an envelope", envelope.issues, response.status, fields, state), retryable: false };
      return { kind: "accepted", result: { data: envelope.data, response: this.#responseInfo(response.status, response.headers, requestId, state) } };
    } finally {
      reader?.cancel();
      sent.release();
    }
  }

  /** Maps what stopped a list body mid-read: malformed or cut-short JSON, a stalled or dead connection, an abort. */
  #failedReadingList(error: unknown, status: number, reader: ListBodyReader, state: CallState): FailedAttempt {
    const { context, settings } = state;
    if (error instanceof JsonScanError) return this.#notJson(error.message, status, reader.fields, state);
    if (error instanceof BodyIdleTimeoutError && this.#interruptionError(state) === undefined) {
      const message = `${context.method} ${context.path} timed out: ${error.message} (attempt ${context.attempts})`;
      return { kind: "failed", error: new TimeoutError(message, { request: { ...context }, phase: "attempt", timeout: settings.timeout === false ? 0 : settings.timeout }), retryable: true };
    }
    return this.#failedWithoutResponse(error, state);
  }

  /**
   * A success response whose body is not JSON (or not complete): most likely cut short by a
   * proxy, so worth another attempt, and reported as a validation failure when none is left.
   */
  #notJson(reason: string, status: number, body: unknown, state: CallState): FailedAttempt {
    const { context } = state;
    const issues: ValidationIssue[] = [{ path: [], code: "invalid_json", message: reason }];
    const error = new ResponseValidationError(`${context.method} ${context.path} returned HTTP ${status}, but ${reason}`, { request: { ...context }, status, issues, body });
    return { kind: "failed", error, retryable: true };
  }

  /** A body that arrived whole and as JSON but does not match its schema (`what`: "a body", "an envelope"). */
  #schemaMismatch(what: string, issues: readonly ValidationIssue[], status: number, body: unknown, state: CallState, hint = ""): ResponseValidationError {
    const { context } = state;
    const count = `${issues.length} ${issues.length === 1 ? "issue" : "issues"}`;
    return new ResponseValidationError(`${context.method} ${context.path} returned ${what} that does not match its schema (${count}): ${scrubSecrets(summarizeIssues(issues), state.secrets)}${hint}`, {
      request: { ...context },
      status,
      issues,
      body,
    });
  }

  /** The ApiError of an error status or of a body that says `hasError: true`; only a retryable status is worth another attempt. */
  #apiErrorOf(response: Response, body: unknown, state: CallState): FailedAttempt {
    const { status, headers } = response;
    const envelope = readEnvelopeError(body);
    const apiError = createApiError({
      request: { ...state.context },
      status,
      errorCode: envelope.errorCode === undefined ? undefined : scrubSecrets(envelope.errorCode, state.secrets),
      messages: envelope.messages.map((message) => scrubSecrets(message, state.secrets)),
      requestId: findRequestId(headers),
      retryAfter: parseRetryAfter(headers.get("retry-after"), this.#config.clock.now()),
      headers,
      body,
    });
    const success = status >= 200 && status <= 299;
    return { kind: "failed", error: apiError, apiError, retryable: !success && isRetryableStatus(status) };
  }

  /** The response info of a completed call. */
  #responseInfo(status: number, headers: Headers, requestId: string | undefined, state: CallState): ResponseInfo {
    const { context } = state;
    return { status, headers, requestId, durationMs: this.#elapsed(state), attempts: context.attempts, operation: context.operation, method: context.method, url: context.url };
  }

  /** Waits for a concurrency slot and a rate-limit token, and sends one attempt. The slot is held on success. */
  async #send(body: unknown, state: CallState): Promise<SentAttempt | FailedAttempt> {
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
      try {
        response = await raceWithSignal(pending, scope.signal);
      } catch (error) {
        release();
        return this.#failedWithoutResponse(error, state);
      }
      return { kind: "sent", response, pending, release };
    } catch (error) {
      release();
      throw error;
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
    if (!success || envelope.hasError) return this.#apiErrorOf(response, body, state);
    if (!parsed.json) return this.#notJson(parsed.reason, status, body, state);
    return { kind: "accepted", status, headers, requestId, body };
  }

  /** Validates an accepted body and builds the result with its response info. */
  #accept<T>(call: OperationCall<T>, accepted: AcceptedResponse, state: CallState): WithResponse<T> {
    const outcome = call.parse(accepted.body, state.settings.validation);
    if (!outcome.success) {
      const hint = call.operation === "listSurveys" ? " (surveys.listItemwise() keeps the valid surveys and reports the others)" : "";
      throw this.#schemaMismatch("a body", outcome.issues, accepted.status, accepted.body, state, hint);
    }
    return { data: outcome.data, response: this.#responseInfo(accepted.status, accepted.headers, accepted.requestId, state) };
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

  #checkBody(call: Pick<OperationCall<unknown>, "operation" | "body">, context: RequestContext): unknown {
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
