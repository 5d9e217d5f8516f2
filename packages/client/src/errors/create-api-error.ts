import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  type ApiErrorDetails,
} from "./api-error.ts";

/**
 * Maps an error response to the {@link ApiError} subclass of its status: 400, 401, 403, 404,
 * 429 and 5xx have their own; anything else (including `hasError: true` under 200) is an
 * `ApiError`. The one place that decides which class an error response becomes.
 */
export function createApiError(details: ApiErrorDetails): ApiError {
  const message = describeApiError(details);
  const { status } = details;
  if (status === 400) return new BadRequestError(message, details);
  if (status === 401) return new AuthenticationError(message, details);
  if (status === 403) return new PermissionDeniedError(message, details);
  if (status === 404) return new NotFoundError(message, details);
  if (status === 429) return new RateLimitError(message, details);
  if (status >= 500 && status <= 599) return new ServerError(message, details);
  return new ApiError(message, details);
}

/** `GET /surveys failed with HTTP 401 (AUTH_FAILED): Invalid key` — method, path, status, code, messages. */
function describeApiError({ request, status, errorCode, messages }: ApiErrorDetails): string {
  const what =
    status >= 200 && status <= 299
      ? `reported an error (hasError: true) under HTTP ${status}`
      : `failed with HTTP ${status}`;
  const code = errorCode ? ` (${errorCode})` : "";
  const text = messages.length > 0 ? `: ${messages.join("; ")}` : "";
  return `${request.method} ${request.path} ${what}${code}${text}`;
}
