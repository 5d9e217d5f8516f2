/** The operations of sds-sync's API, named as its `/openapi.json` names them. */
export type SyncOperationId =
  | "healthz"
  | "readyz"
  | "listSurveys"
  | "getSurvey"
  | "listCollections"
  | "listChanges"
  | "syncStatus"
  | "runSync"
  | "confirmClosures"
  | "match"
  | "issueEntryLink"
  | "listOutcomes"
  | "importHistory"
  | "reconcileOutcomes"
  | "startSession"
  | "getSession"
  | "answerSession"
  | "endSession"
  | "readProfile"
  | "eraseProfile"
  | "eventsStatus"
  | "resumeWebhook";

/** The request an error belongs to. */
export interface SyncRequestContext {
  /** The operation, as `/openapi.json` names it (`"issueEntryLink"`). */
  readonly operation: SyncOperationId;
  readonly method: "GET" | "POST" | "DELETE";
  /** The path and query relative to the base URL (`/v1/outcomes?after=10`). */
  readonly path: string;
  /** The full URL the request went to. */
  readonly url: string;
  /** How many attempts were made, retries included (0 when nothing was sent). */
  readonly attempts: number;
}

/** Every `name` an error of `@sds/sync-client` can carry. */
export type SyncClientErrorName =
  | "SyncClientError"
  | "SyncConfigurationError"
  | "SyncRequestValidationError"
  | "SyncApiError"
  | "SyncBadRequestError"
  | "SyncAuthenticationError"
  | "SyncPermissionDeniedError"
  | "SyncNotFoundError"
  | "SyncConflictError"
  | "SyncGoneError"
  | "SyncRateLimitError"
  | "SyncServerError"
  | "SyncConnectionError"
  | "SyncTimeoutError"
  | "SyncAbortedError"
  | "SyncResponseValidationError";

/** Marks the family's errors across duplicated copies of the package (a registered symbol is the same in each). */
export const syncClientErrorBrand: unique symbol = Symbol.for("@sds/sync-client/error") as never;

/**
 * The base of every error `@sds/sync-client` throws. Errors never hold the API token: it is
 * sent in a header that no error keeps, and scrubbed from any text the service sends back.
 *
 * @example
 * ```ts
 * try {
 *   await sync.entryLinks.create({ surveyId: 42, token: "t-1" });
 * } catch (error) {
 *   if (isSyncClientError(error)) console.error(error.name, error.message);
 *   else throw error;
 * }
 * ```
 */
export class SyncClientError extends Error {
  /** The class of the error, also across copies of the package. */
  override name: SyncClientErrorName = "SyncClientError";
  /** The operation that failed, when the error belongs to a request. */
  readonly operation: SyncOperationId | undefined;
  /** The HTTP method of that request. */
  readonly method: "GET" | "POST" | "DELETE" | undefined;
  /** The path (and query) of that request relative to the base URL. */
  readonly path: string | undefined;
  /** The full URL of that request. */
  readonly url: string | undefined;
  /** How many attempts were made (retries included). */
  readonly attempts: number | undefined;
  declare readonly [syncClientErrorBrand]: true;

  constructor(message: string, options: { readonly cause?: unknown; readonly request?: SyncRequestContext } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options.request?.operation;
    this.method = options.request?.method;
    this.path = options.request?.path;
    this.url = options.request?.url;
    this.attempts = options.request?.attempts;
  }

  /** A plain description for structured logs: name, message, the request and the subclass's fields. */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { name: this.name, message: this.message };
    if (this.operation !== undefined)
      Object.assign(json, {
        operation: this.operation,
        method: this.method,
        path: this.path,
        url: this.url,
        attempts: this.attempts,
      });
    return Object.assign(json, this.details());
  }

  /** Fields of a subclass that belong in {@link SyncClientError.toJSON}. */
  protected details(): Record<string, unknown> {
    return {};
  }
}

// On the prototype, so it shows in no listing of the error's own properties.
Object.defineProperty(SyncClientError.prototype, syncClientErrorBrand, { value: true, enumerable: false });

/**
 * The client was given (or found in the environment) an option it cannot work with: no base
 * URL, a malformed one, a negative timeout. Thrown at construction, before any request.
 */
export class SyncConfigurationError extends SyncClientError {
  override name = "SyncConfigurationError" as const;
  /** The option at fault, such as `"baseUrl"`. */
  readonly option: string;

  constructor(message: string, option: string, options: { readonly cause?: unknown } = {}) {
    super(message, options);
    this.option = option;
  }

  protected override details(): Record<string, unknown> {
    return { option: this.option };
  }
}
