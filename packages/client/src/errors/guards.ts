import type {
  ApiError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
} from "./api-error.ts";
import type { ConfigurationError } from "./configuration-error.ts";
import type { RequestError } from "./request-error.ts";
import { sdsErrorBrand, SdsError, type SdsErrorName } from "./sds-error.ts";
import type { ConnectionError, RequestAbortedError, TimeoutError } from "./transport-errors.ts";
import type { RequestValidationError, ResponseValidationError } from "./validation-errors.ts";

/** A class of the family: every error name, and the abstract {@link RequestError} that no error is named after. */
type ErrorClassName = SdsErrorName | "RequestError";

/** Each error class and its parent class: the hierarchy, readable without `instanceof`. */
const parentOf: Readonly<Record<ErrorClassName, ErrorClassName | undefined>> = {
  SdsError: undefined,
  ConfigurationError: "SdsError",
  RequestError: "SdsError",
  RequestValidationError: "RequestError",
  ApiError: "RequestError",
  BadRequestError: "ApiError",
  AuthenticationError: "ApiError",
  PermissionDeniedError: "ApiError",
  NotFoundError: "ApiError",
  RateLimitError: "ApiError",
  ServerError: "ApiError",
  ConnectionError: "RequestError",
  TimeoutError: "RequestError",
  RequestAbortedError: "RequestError",
  ResponseValidationError: "RequestError",
};

/** Whether an error named `name` is of class `ancestor`; `name` must be one an error can carry (the abstract `RequestError` is none). */
function descendsFrom(name: unknown, ancestor: ErrorClassName): boolean {
  let current =
    typeof name === "string" && name !== "RequestError" && Object.hasOwn(parentOf, name)
      ? (name as ErrorClassName)
      : undefined;
  while (current !== undefined) {
    if (current === ancestor) return true;
    current = parentOf[current];
  }
  return false;
}

/**
 * Whether `value` is an error of class `className` or a subclass, also when it comes from
 * another copy of this package (where `instanceof` fails): branded by a registered symbol and
 * named after the class or a subclass of it.
 */
function isErrorOf(value: unknown, className: ErrorClassName): boolean {
  if (value instanceof SdsError) return descendsFrom(value.name, className);
  if (typeof value !== "object" || value === null) return false;
  return (
    (value as { [sdsErrorBrand]?: unknown })[sdsErrorBrand] === true &&
    descendsFrom((value as { name?: unknown }).name, className)
  );
}

/** Whether `value` is any error of `@sds/client`. */
export const isSdsError = (value: unknown): value is SdsError => isErrorOf(value, "SdsError");
/** Whether `value` is a {@link ConfigurationError}. */
export const isConfigurationError = (value: unknown): value is ConfigurationError =>
  isErrorOf(value, "ConfigurationError");
/** Whether `value` is a {@link RequestValidationError}. */
export const isRequestValidationError = (value: unknown): value is RequestValidationError =>
  isErrorOf(value, "RequestValidationError");
/** Whether `value` is a {@link RequestError}: any error that belongs to a request (all but `ConfigurationError`). */
export const isRequestError = (value: unknown): value is RequestError => isErrorOf(value, "RequestError");
/** Whether `value` is an {@link ApiError} or one of its subclasses. */
export const isApiError = (value: unknown): value is ApiError => isErrorOf(value, "ApiError");
/** Whether `value` is a {@link BadRequestError} (HTTP 400). */
export const isBadRequestError = (value: unknown): value is BadRequestError => isErrorOf(value, "BadRequestError");
/** Whether `value` is an {@link AuthenticationError} (HTTP 401). */
export const isAuthenticationError = (value: unknown): value is AuthenticationError =>
  isErrorOf(value, "AuthenticationError");
/** Whether `value` is a {@link PermissionDeniedError} (HTTP 403). */
export const isPermissionDeniedError = (value: unknown): value is PermissionDeniedError =>
  isErrorOf(value, "PermissionDeniedError");
/** Whether `value` is a {@link NotFoundError} (HTTP 404). */
export const isNotFoundError = (value: unknown): value is NotFoundError => isErrorOf(value, "NotFoundError");
/** Whether `value` is a {@link RateLimitError} (HTTP 429). */
export const isRateLimitError = (value: unknown): value is RateLimitError => isErrorOf(value, "RateLimitError");
/** Whether `value` is a {@link ServerError} (HTTP 5xx). */
export const isServerError = (value: unknown): value is ServerError => isErrorOf(value, "ServerError");
/** Whether `value` is a {@link ConnectionError}. */
export const isConnectionError = (value: unknown): value is ConnectionError => isErrorOf(value, "ConnectionError");
/** Whether `value` is a {@link TimeoutError} of this package (not ky's or the DOM's). */
export const isTimeoutError = (value: unknown): value is TimeoutError => isErrorOf(value, "TimeoutError");
/** Whether `value` is a {@link RequestAbortedError}. */
export const isRequestAbortedError = (value: unknown): value is RequestAbortedError =>
  isErrorOf(value, "RequestAbortedError");
/** Whether `value` is a {@link ResponseValidationError}. */
export const isResponseValidationError = (value: unknown): value is ResponseValidationError =>
  isErrorOf(value, "ResponseValidationError");
