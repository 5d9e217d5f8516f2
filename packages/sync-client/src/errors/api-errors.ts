import { SyncClientError, type SyncRequestContext } from "./sync-client-error.ts";

/** What the client knows of an error answer. */
export interface SyncApiErrorDetails {
  readonly request: SyncRequestContext;
  readonly status: number;
  /** sds-sync's machine-readable code (`token_in_use`, `feed_expired`, …); `undefined` when the body had none. */
  readonly code: string | undefined;
  /** sds-sync's own sentence; `undefined` when the body had none. */
  readonly serviceMessage: string | undefined;
  /** The wait the service asked for in `Retry-After`, in milliseconds. */
  readonly retryAfter: number | undefined;
  /** The body as received (parsed JSON, or text). */
  readonly body: unknown;
}

/**
 * sds-sync answered with an error status. Subclasses name the statuses a caller acts on; any
 * other (413, 415, 422, …) is a `SyncApiError` itself. `code` is sds-sync's error code.
 *
 * @example
 * ```ts
 * try {
 *   await sync.entryLinks.create({ surveyId, token, uid });
 * } catch (error) {
 *   if (error instanceof SyncConflictError && error.code === "respondent_excluded") offerAnotherSurvey();
 *   else throw error;
 * }
 * ```
 */
export class SyncApiError extends SyncClientError {
  override name: "SyncApiError" | SyncApiErrorSubclassName = "SyncApiError";
  /** The HTTP status. */
  readonly status: number;
  /** sds-sync's error code (`token_in_use`, `respondent_excluded`, `outcomes_expired`, …), when it sent one. */
  readonly code: string | undefined;
  /** sds-sync's own sentence, when it sent one. */
  readonly serviceMessage: string | undefined;
  /** How long the service asked to wait (`Retry-After`), in milliseconds. */
  readonly retryAfter: number | undefined;
  /** The body as received. Non-enumerable: kept out of logs that spread the error. */
  declare readonly body: unknown;

  constructor(message: string, details: SyncApiErrorDetails) {
    super(message, { request: details.request });
    this.status = details.status;
    this.code = details.code;
    this.serviceMessage = details.serviceMessage;
    this.retryAfter = details.retryAfter;
    Object.defineProperty(this, "body", { value: details.body, enumerable: false });
  }

  protected override details(): Record<string, unknown> {
    return { status: this.status, code: this.code, serviceMessage: this.serviceMessage, retryAfter: this.retryAfter };
  }
}

/** The names of the subclasses of {@link SyncApiError}. */
export type SyncApiErrorSubclassName =
  | "SyncBadRequestError"
  | "SyncAuthenticationError"
  | "SyncPermissionDeniedError"
  | "SyncNotFoundError"
  | "SyncConflictError"
  | "SyncGoneError"
  | "SyncRateLimitError"
  | "SyncServerError";

/** HTTP 400: a parameter or the body is malformed; the message names it. */
export class SyncBadRequestError extends SyncApiError {
  override name = "SyncBadRequestError" as const;
}

/** HTTP 401: sds-sync runs with `SYNC_API_TOKEN` and the request lacks it, or carries another. */
export class SyncAuthenticationError extends SyncApiError {
  override name = "SyncAuthenticationError" as const;
}

/** HTTP 403: the Host or Origin is not allowed (`SYNC_ALLOWED_HOSTS`, `SYNC_ALLOWED_ORIGINS`). */
export class SyncPermissionDeniedError extends SyncApiError {
  override name = "SyncPermissionDeniedError" as const;
}

/** HTTP 404: no such survey (not live, not stored), or no such route on this sds-sync. */
export class SyncNotFoundError extends SyncApiError {
  override name = "SyncNotFoundError" as const;
}

/**
 * HTTP 409: in conflict with the current state: `token_in_use` (the token belongs to another
 * entry), `respondent_excluded`, `survey_unroutable` (held out for everyone, for now),
 * `not_leader` (a replica that does not lead).
 */
export class SyncConflictError extends SyncApiError {
  override name = "SyncConflictError" as const;
}

/**
 * HTTP 410: `feed_expired` or `outcomes_expired`: the entries after `after` were pruned. The
 * message says where the feed starts now and how to go on.
 */
export class SyncGoneError extends SyncApiError {
  override name = "SyncGoneError" as const;
}

/** HTTP 429: manual runs are spaced, or held while an upstream 429's wait is pending. */
export class SyncRateLimitError extends SyncApiError {
  override name = "SyncRateLimitError" as const;
}

/** HTTP 5xx: the service failed or is unavailable (a store down, shutting down, settings not read yet). */
export class SyncServerError extends SyncApiError {
  override name = "SyncServerError" as const;
}

/** Maps an error answer to the {@link SyncApiError} subclass of its status: the one place that decides. */
export function createSyncApiError(details: SyncApiErrorDetails): SyncApiError {
  const { request, status, code, serviceMessage } = details;
  const message = `${request.method} ${request.path} failed with HTTP ${status}${code === undefined ? "" : ` (${code})`}${serviceMessage === undefined ? "" : `: ${serviceMessage}`}`;
  if (status === 400) return new SyncBadRequestError(message, details);
  if (status === 401) return new SyncAuthenticationError(message, details);
  if (status === 403) return new SyncPermissionDeniedError(message, details);
  if (status === 404) return new SyncNotFoundError(message, details);
  if (status === 409) return new SyncConflictError(message, details);
  if (status === 410) return new SyncGoneError(message, details);
  if (status === 429) return new SyncRateLimitError(message, details);
  if (status >= 500 && status <= 599) return new SyncServerError(message, details);
  return new SyncApiError(message, details);
}
