import { expandPath, operations, type OperationDefinition, type OperationId } from "@sds/schemas";
import ky, { isHTTPError, type KyInstance } from "ky";
import { ApiPromise, type WithResponse } from "../api-promise.ts";
import type { RequestOptions } from "../client-options.ts";
import type { RequestContext } from "../errors/sds-error.ts";
import { SdsError } from "../errors/sds-error.ts";
import { RequestValidationError } from "../errors/validation-errors.ts";
import type { ClientHooks } from "../hooks.ts";
import { raceWithSignal } from "./abort.ts";
import { failureOf, interruptionError } from "./attempt-failures.ts";
import { CallScope } from "./call-scope.ts";
import type {
  AttemptOutcome,
  CallState,
  FailedAttempt,
  ListStreamCall,
  OperationCall,
  ResponseReader,
} from "./call-types.ts";
import { ConcurrencyLimiter, type Release } from "./concurrency-limiter.ts";
import { RateLimiter } from "./rate-limiter.ts";
import { redactHeaders } from "./redact.ts";
import { checkPathParams } from "./request-checks.ts";
import { resolveCallSettings, type ClientConfig } from "./resolve-options.ts";
import { findRequestId, parseBody } from "./response-body.ts";
import { listStreamReader, wholeBodyReader } from "./response-readers.ts";
import { planRetry } from "./retry-policy.ts";
import { summarizeIssues, toValidationIssues } from "./validate-response.ts";

/**
 * Runs every call of one client: one retry loop over attempts, each of which reads its response
 * with one of two readers (`response-readers.ts`: the whole body, or a list as it streams in).
 *
 * ky's job, per attempt: build and send the request (URL, headers, JSON body), the attempt
 * timeout (to the response headers, and for a whole body to its end), telling network failures
 * and timeouts apart (`NetworkError`, `TimeoutError`), and reading an error status's body into an
 * `HTTPError` (bounded in time and size, JSON or text); so error bodies are read in one place, for
 * both readers.
 *
 * Ours: the retry loop and everything around an attempt, because the client must give the
 * concurrency slot back and take a fresh rate-limit token between attempts, refuse a
 * `Retry-After` beyond the cap or the deadline instead of sleeping into a timeout (ky caps it
 * and sleeps), tell `onRetry` the delay, wait on an injectable clock (ky's delays are real
 * timers), and never retry a stream once items reached the consumer. Also ours: validating the
 * request, the deadline across queueing and retries, mapping every failure to the error family
 * (`attempt-failures.ts`), the hooks, and the streamed list body (ky buffers bodies).
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
      // The retry loop is ours (see above); ky sends one attempt per call.
      retry: 0,
      // The client's own headers and attempt timeout are the instance's; a call passes only what
      // it changes, which spares ky merging the headers twice on every request (see #attempt).
      headers: config.headers,
      timeout: config.timeout,
      // An error status becomes an HTTPError whose `data` ky has read: JSON, else text. Malformed
      // JSON is kept as text rather than dropped, for the error to show it.
      throwHttpErrors: true,
      parseJson: (text) => {
        const parsed = parseBody(text);
        return parsed.json ? parsed.value : text;
      },
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
    return new ApiPromise(this.#whole(call, options));
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
  streamList<Item, Envelope>(
    call: ListStreamCall<Item, Envelope>,
    options: RequestOptions = {},
  ): AsyncGenerator<readonly Item[], WithResponse<Envelope>, undefined> {
    return this.#call(call, listStreamReader(call), options, call.onStopped);
  }

  async #whole<T>(call: OperationCall<T>, options: RequestOptions): Promise<WithResponse<T>> {
    // The whole-body reader yields nothing, so the first step is the end.
    const step = await this.#call(call, wholeBodyReader(call), options).next();
    if (!step.done) throw new Error("a whole-body call yielded items");
    return step.value;
  }

  /**
   * The one retry loop: checks the request, then runs attempts until one is accepted, or a
   * failure is not worth (or not allowed) another; reports the final error to the hooks.
   */
  async *#call<Item, Result>(
    call: Pick<OperationCall<unknown>, "operation" | "pathParams" | "body">,
    read: ResponseReader<Item, Result>,
    options: RequestOptions,
    onStopped?: (request: RequestContext) => void,
  ): AsyncGenerator<readonly Item[], Result, undefined> {
    const { state, body } = this.#begin(call, options);
    let settled = false;
    try {
      for (;;) {
        const outcome = yield* this.#attempt(body, read, state);
        if (outcome.kind === "accepted") {
          settled = true;
          return outcome.settle();
        }
        await this.#retryOrThrow(state.yielded ? { ...outcome, retryable: false } : outcome, state);
      }
    } catch (error) {
      settled = true;
      if (error instanceof SdsError)
        this.#emit("onError", { ...eventBase(state), error, durationMs: this.#elapsed(state) });
      throw error;
    } finally {
      state.scope.dispose();
      if (!settled) onStopped?.({ ...state.context });
    }
  }

  /** One attempt: a concurrency slot and a rate-limit token, the request through ky, the response read by `read`. */
  async *#attempt<Item, Result>(
    body: unknown,
    read: ResponseReader<Item, Result>,
    state: CallState,
  ): AsyncGenerator<readonly Item[], AttemptOutcome<Result>, undefined> {
    const release = await this.#acquire(state);
    try {
      const { context, settings, scope } = state;
      context.attempts++;
      if (this.#observed)
        this.#emit("onRequest", { ...eventBase(state), headers: redactHeaders(new Headers(settings.headers)) });
      const pending = this.#http(context.url, {
        method: context.method,
        ...(settings.headers === this.#config.headers ? {} : { headers: settings.headers }),
        ...(settings.timeout === this.#config.timeout ? {} : { timeout: settings.timeout }),
        ...(scope.signal === undefined ? {} : { signal: scope.signal }),
        ...(body === undefined ? {} : { json: body }),
      });
      let response: Response;
      try {
        response = await raceWithSignal(pending, scope.signal);
      } catch (error) {
        if (this.#observed && isHTTPError(error)) this.#emitResponse(error.response, state);
        return failureOf(error, state);
      }
      if (this.#observed) this.#emitResponse(response, state);
      return yield* read(response, pending, state);
    } finally {
      release();
    }
  }

  /** Waits for a concurrency slot, then a rate-limit token (slot held). Throws the call's interruption. */
  async #acquire(state: CallState): Promise<Release> {
    const { signal } = state.scope;
    let release: Release | undefined;
    try {
      release = await this.#concurrency.acquire(signal);
      await this.#rateLimiter?.acquire(signal);
      return release;
    } catch (error) {
      release?.();
      throw interruptionError(state) ?? error;
    }
  }

  /** Waits before the next attempt, or throws the attempt's error when no retry is due. */
  async #retryOrThrow(outcome: FailedAttempt, state: CallState): Promise<void> {
    const { clock } = this.#config;
    const plan = outcome.retryable
      ? planRetry({
          attempts: state.context.attempts,
          retry: state.settings.retry,
          apiError: outcome.apiError,
          now: clock.now(),
          deadlineAt: state.scope.deadlineAt,
        })
      : undefined;
    if (plan === undefined) throw outcome.error;
    this.#emit("onRetry", {
      ...eventBase(state),
      error: outcome.error,
      delayMs: plan.delayMs,
      fromRetryAfter: plan.fromRetryAfter,
    });
    try {
      await clock.sleep(plan.delayMs, state.scope.signal);
    } catch (error) {
      throw interruptionError(state) ?? error;
    }
  }

  /** Checks the path parameters and the body, and sets up the call's state. Throws RequestValidationError. */
  #begin(
    call: Pick<OperationCall<unknown>, "operation" | "pathParams" | "body">,
    options: RequestOptions,
  ): { state: CallState; body: unknown } {
    const { method } = operations[call.operation];
    const pathTemplate = this.#config.paths[call.operation];
    const pathIssues = checkPathParams(operations[call.operation].pathParams, call.pathParams ?? {});
    const path = pathIssues.length === 0 ? expandPath(pathTemplate, call.pathParams ?? {}) : pathTemplate;
    const context = { operation: call.operation, method, path, url: `${this.#config.baseUrl}${path}`, attempts: 0 };
    if (pathIssues.length > 0) {
      throw new RequestValidationError(`${method} ${pathTemplate} was not sent: ${summarizeIssues(pathIssues)}`, {
        request: { ...context },
        issues: pathIssues,
      });
    }
    const body = checkBody(call, context);
    const settings = resolveCallSettings(this.#config, options);
    const { clock } = this.#config;
    const state: CallState = {
      context,
      settings,
      scope: new CallScope(clock, options.signal, settings.deadline),
      startedAt: clock.now(),
      secrets: settings.secrets,
      clock,
      yielded: false,
    };
    return { state, body };
  }

  #emitResponse(response: Response, state: CallState): void {
    this.#emit("onResponse", {
      ...eventBase(state),
      status: response.status,
      durationMs: this.#elapsed(state),
      requestId: findRequestId(response.headers),
    });
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

/** The request body, checked against the operation's schema. @throws RequestValidationError */
function checkBody(call: Pick<OperationCall<unknown>, "operation" | "body">, context: RequestContext): unknown {
  const operation: OperationDefinition = operations[call.operation];
  const schema = operation.body;
  if (schema === undefined) return undefined;
  const result = schema.safeParse(call.body);
  if (result.success) return result.data;
  const issues =
    call.body === undefined
      ? [{ path: [], code: "invalid_type", message: "the request body is required" }]
      : toValidationIssues(result.error.issues);
  throw new RequestValidationError(
    `${context.method} ${context.path} was not sent: the body is invalid: ${summarizeIssues(issues)}`,
    { request: context, issues },
  );
}

function eventBase(state: CallState): { operation: OperationId; method: "GET" | "PUT"; url: string; attempt: number } {
  const { operation, method, url, attempts } = state.context;
  return { operation, method, url, attempt: attempts };
}
