import type { OperationId } from "@sds/schemas";

/** What a call learned about the HTTP exchange, read from the response it already received. */
export interface ResponseInfo {
  /** The HTTP status of the final response. */
  readonly status: number;
  /** The headers of the final response. */
  readonly headers: Headers;
  /** The request id from `x-request-id` (or `request-id`, `x-correlation-id`), when the server sent one. */
  readonly requestId: string | undefined;
  /** Time from the call to the parsed response: queueing, every attempt and retry delays. */
  readonly durationMs: number;
  /** How many attempts it took (1 when no retry was needed). */
  readonly attempts: number;
  /** The operation id, such as `"listSurveys"`. */
  readonly operation: OperationId;
  /** The HTTP method. */
  readonly method: "GET" | "PUT";
  /** The full URL of the request. */
  readonly url: string;
}

/** The result of {@link ApiPromise.withResponse}: the data and the response it came from. */
export interface WithResponse<T> {
  /** What awaiting the call resolves to. */
  readonly data: T;
  /** The response the data came from. */
  readonly response: ResponseInfo;
}

/**
 * The promise every operation returns: await it for the data, or call
 * {@link ApiPromise.withResponse} for the data and the {@link ResponseInfo} (status, headers,
 * request id, duration, attempts) of the same request — no second request is made.
 *
 * @example
 * ```ts
 * const surveys = await sds.surveys.list();
 * const { data, response } = await sds.surveys.list().withResponse();
 * console.log(response.status, response.requestId, response.durationMs);
 * ```
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #result: Promise<WithResponse<T>>;

  /** @internal Created by the client; `result` is the request already under way. */
  constructor(result: Promise<WithResponse<T>>) {
    // The base promise is never used: `then`, `catch` and `finally` delegate to `result`.
    super((resolve) => {
      resolve(undefined as T);
    });
    this.#result = result;
  }

  // Promises derived from an ApiPromise (by `Promise.prototype.then` called on it) are plain.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** The data together with the {@link ResponseInfo} of the request that produced it. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#result;
  }

  /** Resolves to the data; rejects with the call's error. */
  override then<Fulfilled = T, Rejected = never>(
    onfulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.#result.then(({ data }) => data).then(onfulfilled, onrejected);
  }

  /** Handles the call's error. */
  override catch<Rejected = never>(
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<T | Rejected> {
    return this.then(undefined, onrejected);
  }

  /** Runs `onfinally` when the call settles. */
  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }
}
