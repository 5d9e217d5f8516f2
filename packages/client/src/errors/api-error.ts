import { RequestError } from "./request-error.ts";
import { defineHiddenProperty, type RequestContext } from "./sds-error.ts";

/** What the client knows of an error response. */
export interface ApiErrorDetails {
  /** The request the response answered. */
  readonly request: RequestContext;
  /** The HTTP status (200 when the envelope says `hasError: true` under a success status). */
  readonly status: number;
  /** `error.errorCode` of the envelope; `undefined` when the body has none. */
  readonly errorCode: string | undefined;
  /** `messages` of the envelope; empty when the body has none. */
  readonly messages: readonly string[];
  /** The request id the server sent in a response header, if any. */
  readonly requestId: string | undefined;
  /** The delay the server asked for in `Retry-After`, in milliseconds. */
  readonly retryAfter: number | undefined;
  /** The response headers. */
  readonly headers: Headers;
  /** The response body as received: parsed JSON, or the text when it was not JSON. */
  readonly body: unknown;
}

/**
 * The service answered with an error: an HTTP status outside 2xx, or `hasError: true` in the
 * envelope (which counts as an error even under HTTP 200). Subclasses name the common statuses;
 * any other status is an `ApiError` itself.
 *
 * @example
 * ```ts
 * try {
 *   await sds.surveys.qualifications(42);
 * } catch (error) {
 *   if (error instanceof ApiError) console.error(error.status, error.errorCode, error.messages);
 * }
 * ```
 */
export class ApiError extends RequestError {
  override name: "ApiError" | ApiErrorSubclassName = "ApiError";
  /** The HTTP status; 200 when only the envelope signalled the error. */
  readonly status: number;
  /** `error.errorCode` from the envelope, when the body carried one. */
  readonly errorCode: string | undefined;
  /** `messages` from the envelope (human-readable, from the server). */
  readonly messages: readonly string[];
  /** The request id from the response headers (`x-request-id` and kin), for support tickets. */
  readonly requestId: string | undefined;
  /** How long the server asked to wait before retrying (`Retry-After`), in milliseconds. */
  readonly retryAfter: number | undefined;
  /** The response headers. */
  declare readonly headers: Headers;
  /**
   * The response body as received (parsed JSON, or text). Non-enumerable, and left out of
   * `toJSON()` and `util.inspect()`, because a body can hold secrets.
   */
  declare readonly body: unknown;

  constructor(message: string, details: ApiErrorDetails, options: { readonly cause?: unknown } = {}) {
    super(message, details.request, options);
    this.status = details.status;
    this.errorCode = details.errorCode;
    this.messages = details.messages;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
    defineHiddenProperty(this, "headers", details.headers);
    defineHiddenProperty(this, "body", details.body);
  }

  protected override details(): Record<string, unknown> {
    return {
      status: this.status,
      errorCode: this.errorCode,
      messages: this.messages,
      requestId: this.requestId,
      retryAfter: this.retryAfter,
    };
  }
}

/** The names of the subclasses of {@link ApiError}. */
export type ApiErrorSubclassName =
  | "BadRequestError"
  | "AuthenticationError"
  | "PermissionDeniedError"
  | "NotFoundError"
  | "RateLimitError"
  | "ServerError";

/** HTTP 400: the service rejected the request (for updates: the body). */
export class BadRequestError extends ApiError {
  override name = "BadRequestError" as const;
}

/** HTTP 401: the API key is missing, wrong, or valid for another deployment (sandbox vs production). */
export class AuthenticationError extends ApiError {
  override name = "AuthenticationError" as const;
}

/** HTTP 403: the key is valid but may not do this (for example another supplier's `SupplierId`). */
export class PermissionDeniedError extends ApiError {
  override name = "PermissionDeniedError" as const;
}

/** HTTP 404: no such survey, qualification or route (check `paths` for undocumented operations). */
export class NotFoundError extends ApiError {
  override name = "NotFoundError" as const;
}

/** HTTP 429: too many requests. `retryAfter` holds the wait the server asked for, in milliseconds. */
export class RateLimitError extends ApiError {
  override name = "RateLimitError" as const;
}

/** HTTP 5xx: the service failed. Retried automatically before this is thrown. */
export class ServerError extends ApiError {
  override name = "ServerError" as const;
}
