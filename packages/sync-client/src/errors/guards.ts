import type {
  SyncApiError,
  SyncAuthenticationError,
  SyncBadRequestError,
  SyncConflictError,
  SyncGoneError,
  SyncNotFoundError,
  SyncPermissionDeniedError,
  SyncRateLimitError,
  SyncServerError,
} from "./api-errors.ts";
import type {
  SyncAbortedError,
  SyncConnectionError,
  SyncRequestValidationError,
  SyncResponseValidationError,
  SyncTimeoutError,
} from "./request-errors.ts";
import {
  syncClientErrorBrand,
  type SyncClientError,
  type SyncClientErrorName,
  type SyncConfigurationError,
} from "./sync-client-error.ts";

/** Each error class and its parent: the hierarchy, readable without `instanceof`. */
const parentOf: Readonly<Record<SyncClientErrorName, SyncClientErrorName | undefined>> = {
  SyncClientError: undefined,
  SyncConfigurationError: "SyncClientError",
  SyncRequestValidationError: "SyncClientError",
  SyncResponseValidationError: "SyncClientError",
  SyncConnectionError: "SyncClientError",
  SyncTimeoutError: "SyncClientError",
  SyncAbortedError: "SyncClientError",
  SyncApiError: "SyncClientError",
  SyncBadRequestError: "SyncApiError",
  SyncAuthenticationError: "SyncApiError",
  SyncPermissionDeniedError: "SyncApiError",
  SyncNotFoundError: "SyncApiError",
  SyncConflictError: "SyncApiError",
  SyncGoneError: "SyncApiError",
  SyncRateLimitError: "SyncApiError",
  SyncServerError: "SyncApiError",
};

/** Whether `value` is of class `ancestor` or a subclass, also from another copy of the package (brand and `name`, not `instanceof`). */
function isOfClass(value: unknown, ancestor: SyncClientErrorName): boolean {
  if (typeof value !== "object" || value === null || (value as Record<symbol, unknown>)[syncClientErrorBrand] !== true)
    return false;
  const name: unknown = (value as { name?: unknown }).name;
  let current = typeof name === "string" && Object.hasOwn(parentOf, name) ? (name as SyncClientErrorName) : undefined;
  while (current !== undefined) {
    if (current === ancestor) return true;
    current = parentOf[current];
  }
  return false;
}

/** Whether `value` is any error of `@sds/sync-client`. */
export const isSyncClientError = (value: unknown): value is SyncClientError => isOfClass(value, "SyncClientError");
/** Whether `value` is a {@link SyncConfigurationError}. */
export const isSyncConfigurationError = (value: unknown): value is SyncConfigurationError =>
  isOfClass(value, "SyncConfigurationError");
/** Whether `value` is a {@link SyncRequestValidationError}. */
export const isSyncRequestValidationError = (value: unknown): value is SyncRequestValidationError =>
  isOfClass(value, "SyncRequestValidationError");
/** Whether `value` is a {@link SyncResponseValidationError}. */
export const isSyncResponseValidationError = (value: unknown): value is SyncResponseValidationError =>
  isOfClass(value, "SyncResponseValidationError");
/** Whether `value` is a {@link SyncConnectionError}. */
export const isSyncConnectionError = (value: unknown): value is SyncConnectionError =>
  isOfClass(value, "SyncConnectionError");
/** Whether `value` is a {@link SyncTimeoutError}. */
export const isSyncTimeoutError = (value: unknown): value is SyncTimeoutError => isOfClass(value, "SyncTimeoutError");
/** Whether `value` is a {@link SyncAbortedError}. */
export const isSyncAbortedError = (value: unknown): value is SyncAbortedError => isOfClass(value, "SyncAbortedError");
/** Whether `value` is a {@link SyncApiError} (any error status). */
export const isSyncApiError = (value: unknown): value is SyncApiError => isOfClass(value, "SyncApiError");
/** Whether `value` is a {@link SyncBadRequestError} (400). */
export const isSyncBadRequestError = (value: unknown): value is SyncBadRequestError =>
  isOfClass(value, "SyncBadRequestError");
/** Whether `value` is a {@link SyncAuthenticationError} (401). */
export const isSyncAuthenticationError = (value: unknown): value is SyncAuthenticationError =>
  isOfClass(value, "SyncAuthenticationError");
/** Whether `value` is a {@link SyncPermissionDeniedError} (403). */
export const isSyncPermissionDeniedError = (value: unknown): value is SyncPermissionDeniedError =>
  isOfClass(value, "SyncPermissionDeniedError");
/** Whether `value` is a {@link SyncNotFoundError} (404). */
export const isSyncNotFoundError = (value: unknown): value is SyncNotFoundError =>
  isOfClass(value, "SyncNotFoundError");
/** Whether `value` is a {@link SyncConflictError} (409). */
export const isSyncConflictError = (value: unknown): value is SyncConflictError =>
  isOfClass(value, "SyncConflictError");
/** Whether `value` is a {@link SyncGoneError} (410). */
export const isSyncGoneError = (value: unknown): value is SyncGoneError => isOfClass(value, "SyncGoneError");
/** Whether `value` is a {@link SyncRateLimitError} (429). */
export const isSyncRateLimitError = (value: unknown): value is SyncRateLimitError =>
  isOfClass(value, "SyncRateLimitError");
/** Whether `value` is a {@link SyncServerError} (5xx). */
export const isSyncServerError = (value: unknown): value is SyncServerError => isOfClass(value, "SyncServerError");
