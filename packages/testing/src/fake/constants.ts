/** The path prefix of every operation: the spec's base URL ends in it. */
export const API_BASE_PATH = "/api/v1";

/** The request header that carries the API key. */
export const API_KEY_HEADER = "EQ-PARTNER-ACCESS-KEY";

/** The path prefix of the control routes (served only with `control: true`). */
export const CONTROL_PREFIX = "/__sandbox";

/** The API key of the default supplier when no `suppliers` option is given. */
export const DEFAULT_API_KEY = "test-api-key";

/** The id of the default supplier when no `suppliers` option is given. */
export const DEFAULT_SUPPLIER_ID = 1001;

/** Largest request body accepted by default: 64 KiB, far above any real update body (about 1 KiB). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * Every `error.errorCode` the fake answers with. The spec shows no code values; these are the
 * fake's own, stable so tests can assert on them.
 */
export const fakeErrorCodes = {
  /** 401: the `EQ-PARTNER-ACCESS-KEY` header is missing. */
  missingApiKey: "MISSING_API_KEY",
  /** 401: the key matches no supplier. */
  invalidApiKey: "INVALID_API_KEY",
  /** 403: the `SupplierId` in the path is not the authenticated supplier's. */
  supplierMismatch: "SUPPLIER_MISMATCH",
  /** 400: the request has no body, or Content-Type is not application/json. */
  unsupportedContentType: "UNSUPPORTED_CONTENT_TYPE",
  /** 400: the body is missing. */
  missingBody: "MISSING_BODY",
  /** 400: the body is larger than `maxBodyBytes`. */
  bodyTooLarge: "BODY_TOO_LARGE",
  /** 400: the body is not valid JSON. */
  invalidJson: "INVALID_JSON",
  /** 400: the body is JSON but not the expected shape; `messages` lists each problem. */
  validationFailed: "VALIDATION_FAILED",
  /** 400: a path parameter such as `surveyId` is not an integer. */
  invalidPathParameter: "INVALID_PATH_PARAMETER",
  /** 404: no survey with that id belongs to the caller. */
  surveyNotFound: "SURVEY_NOT_FOUND",
  /** 404: no language or catalogue qualification with that id. */
  resourceNotFound: "RESOURCE_NOT_FOUND",
  /** 404: no operation at that path. */
  routeNotFound: "ROUTE_NOT_FOUND",
  /** 405: the path exists with another method; `Allow` names it. */
  methodNotAllowed: "METHOD_NOT_ALLOWED",
  /** 500: an injected fault or an unexpected error in the fake. */
  internalError: "INTERNAL_ERROR",
} as const;

/** One of the {@link fakeErrorCodes} values. */
export type FakeErrorCode = (typeof fakeErrorCodes)[keyof typeof fakeErrorCodes];
