import { SdsError, type RequestContext, type SdsErrorName } from "./sds-error.ts";

/** The names of the errors that belong to a request: every {@link SdsErrorName} but `SdsError` and `ConfigurationError`. */
export type RequestErrorName = Exclude<SdsErrorName, "SdsError" | "ConfigurationError">;

/**
 * The base of every error that belongs to a request (like openai-node's `APIError`): the
 * service's error answers ({@link ApiError} and its subclasses), a missing response
 * ({@link ConnectionError}), a time limit ({@link TimeoutError}), the caller's abort
 * ({@link RequestAbortedError}), and a body on either side that fails its schema
 * ({@link RequestValidationError}, {@link ResponseValidationError}). Its request context
 * (`operation`, `method`, `path`, `url`, `attempts`) is always set, where on a plain
 * {@link SdsError} it may be `undefined`. Only its subclasses are ever thrown.
 *
 * @example
 * ```ts
 * try {
 *   await sds.surveys.quotas(42);
 * } catch (error) {
 *   if (error instanceof RequestError) console.error(`${error.operation} failed after ${error.attempts} attempt(s): ${error.name}`);
 * }
 * ```
 */
export abstract class RequestError extends SdsError {
  declare name: RequestErrorName;
  /** The operation that failed, such as `"listSurveys"`. */
  declare readonly operation: RequestContext["operation"];
  /** The HTTP method of the request. */
  declare readonly method: RequestContext["method"];
  /** The path relative to the base URL, placeholders filled in (`/survey-qualifications/42`). */
  declare readonly path: string;
  /** The full URL the request went to. */
  declare readonly url: string;
  /** How many attempts were made, retries included (0 when nothing was sent). */
  declare readonly attempts: number;

  constructor(message: string, request: RequestContext, options: { readonly cause?: unknown } = {}) {
    super(message, { request, cause: options.cause });
  }
}
