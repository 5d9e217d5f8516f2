import { isAuthenticationError, isPermissionDeniedError, isSdsError } from "@sds/client";

/**
 * Whether the upstream refused the API key: it answered 401 (the key is not valid) or 403 (the
 * key may not do this). Retrying cannot help; only a corrected `SDS_API_KEY` can.
 */
export function isKeyRefused(error: unknown): boolean {
  return isAuthenticationError(error) || isPermissionDeniedError(error);
}

/**
 * One line for an upstream failure in a log, without a stack: a refused key says so and names the
 * setting to fix, any other failure is its message. The client's messages carry the method, the
 * path and the status, never the key.
 *
 * @example
 * ```ts
 * logger.warn({ reason: describeUpstreamFailure(error) }, `the account could not be read: ${describeUpstreamFailure(error)}`);
 * // the account could not be read: the upstream refused the API key (SDS_API_KEY): GET /supplier-account failed with HTTP 401 …
 * ```
 */
export function describeUpstreamFailure(error: unknown): string {
  // A trailing full stop would end the sentence the caller builds around this text.
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
  return isKeyRefused(error) ? `the upstream refused the API key (SDS_API_KEY): ${message}` : message;
}

/**
 * The fields of a log line about an upstream failure: `reason` ({@link describeUpstreamFailure}),
 * and the error itself (with its stack) only when it is not one of the client's own errors, whose
 * message says all there is (a stack there would bury it, on every retry).
 */
export function upstreamFailureFields(error: unknown): { readonly reason: string; readonly err?: unknown } {
  const reason = describeUpstreamFailure(error);
  return isSdsError(error) ? { reason } : { reason, err: error };
}
