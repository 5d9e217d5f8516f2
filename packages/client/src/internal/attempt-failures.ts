import { isHTTPError, isNetworkError as isKyNetworkError, isTimeoutError as isKyTimeoutError } from "ky";
import { createApiError } from "../errors/create-api-error.ts";
import type { SdsError } from "../errors/sds-error.ts";
import { ConnectionError, RequestAbortedError, TimeoutError } from "../errors/transport-errors.ts";
import { ResponseValidationError, type ValidationIssue } from "../errors/validation-errors.ts";
import type { CallState, FailedAttempt } from "./call-types.ts";
import { BodyIdleTimeoutError } from "./list-body-reader.ts";
import { scrubSecrets } from "./redact.ts";
import { describeCause } from "./request-checks.ts";
import { findRequestId, parseBody, readEnvelopeError } from "./response-body.ts";
import { isRetryableStatus, parseRetryAfter } from "./retry-policy.ts";
import { summarizeIssues } from "./validate-response.ts";

/*
 * What went wrong in one attempt, as the client's error family: the one place that turns what
 * ky, the runtime and the body readers throw or find into an SdsError, and says whether another
 * attempt could do better. Outside text (server messages, runtime messages) is scrubbed of the
 * call's secrets here.
 */

/**
 * Maps what an attempt threw: ky's `HTTPError` (an error status, its body already read by ky),
 * ky's attempt timeout, a body that stalled, a network failure, or the call's own interruption.
 */
export function failureOf(error: unknown, state: CallState): FailedAttempt {
  const interruption = interruptionError(state);
  if (interruption) return { kind: "failed", error: interruption, retryable: false };
  if (isHTTPError(error))
    return apiErrorOf(error.response.status, error.response.headers, errorBodyOf(error.data), state);
  const { context, settings } = state;
  const request = { ...context };
  const limit = settings.timeout === false ? 0 : settings.timeout;
  if (isKyTimeoutError(error)) {
    const message = `${context.method} ${context.path} timed out: no complete response within ${limit} ms (attempt ${context.attempts})`;
    return {
      kind: "failed",
      error: new TimeoutError(message, { request, phase: "attempt", timeout: limit }),
      retryable: true,
    };
  }
  if (error instanceof BodyIdleTimeoutError) {
    const message = `${context.method} ${context.path} timed out: ${error.message} (attempt ${context.attempts})`;
    return {
      kind: "failed",
      error: new TimeoutError(message, { request, phase: "attempt", timeout: limit }),
      retryable: true,
    };
  }
  // ky wraps the runtime's network errors; its own wrapper holds the Request (and so the key
  // header), so only the runtime's error is kept as the cause.
  const cause = isKyNetworkError(error) ? error.cause : error;
  // Fetch rejects with a TypeError for every network failure, also mid-body ("terminated").
  const retryable = isKyNetworkError(error) || error instanceof TypeError;
  const message = `${context.method} ${context.path} failed: no response (${scrubSecrets(describeCause(cause), state.secrets)})`;
  return { kind: "failed", error: new ConnectionError(message, request, { cause }), retryable };
}

/**
 * The body of an error response as ky read it: JSON when the response said so, else text, which
 * is read as JSON when it is (servers label error bodies carelessly); `undefined` when empty,
 * unreadable, or beyond ky's 10 MiB cap.
 */
function errorBodyOf(data: unknown): unknown {
  if (typeof data !== "string") return data;
  const parsed = parseBody(data);
  return parsed.json ? parsed.value : parsed.text;
}

/** The ApiError of an error status or of a body that says `hasError: true`; only a retryable status is worth another attempt. */
export function apiErrorOf(status: number, headers: Headers, body: unknown, state: CallState): FailedAttempt {
  const envelope = readEnvelopeError(body);
  const apiError = createApiError({
    request: { ...state.context },
    status,
    errorCode: envelope.errorCode === undefined ? undefined : scrubSecrets(envelope.errorCode, state.secrets),
    messages: envelope.messages.map((message) => scrubSecrets(message, state.secrets)),
    requestId: findRequestId(headers),
    retryAfter: parseRetryAfter(headers.get("retry-after"), state.clock.now()),
    headers,
    body,
  });
  const success = status >= 200 && status <= 299;
  return { kind: "failed", error: apiError, apiError, retryable: !success && isRetryableStatus(status) };
}

/**
 * A success response whose body is not JSON (or not complete): most likely cut short by a
 * proxy, so worth another attempt, and reported as a validation failure when none is left.
 */
export function notJson(reason: string, status: number, body: unknown, state: CallState): FailedAttempt {
  const { context } = state;
  const issues: ValidationIssue[] = [{ path: [], code: "invalid_json", message: reason }];
  const error = new ResponseValidationError(
    `${context.method} ${context.path} returned HTTP ${status}, but ${reason}`,
    { request: { ...context }, status, issues, body },
  );
  return { kind: "failed", error, retryable: true };
}

/** A body that arrived whole and as JSON but does not match its schema (`what`: "a body", "an envelope"). */
export function schemaMismatch(
  what: string,
  issues: readonly ValidationIssue[],
  status: number,
  body: unknown,
  state: CallState,
  hint = "",
): ResponseValidationError {
  const { context } = state;
  const count = `${issues.length} ${issues.length === 1 ? "issue" : "issues"}`;
  return new ResponseValidationError(
    `${context.method} ${context.path} returned ${what} that does not match its schema (${count}): ${scrubSecrets(summarizeIssues(issues), state.secrets)}${hint}`,
    {
      request: { ...context },
      status,
      issues,
      body,
    },
  );
}

/** The error for a call cut short by the caller's abort or the deadline, if it was. */
export function interruptionError(state: CallState): SdsError | undefined {
  const { context, scope, settings } = state;
  const interruption = scope.interruption();
  if (interruption === "aborted") {
    return new RequestAbortedError(
      `${context.method} ${context.path} was aborted by the caller`,
      { ...context },
      { cause: scope.abortReason },
    );
  }
  if (interruption === "deadline") {
    const deadline = settings.deadline === false ? 0 : settings.deadline;
    return new TimeoutError(
      `${context.method} ${context.path} ran past its deadline of ${deadline} ms (${context.attempts} attempts)`,
      {
        request: { ...context },
        phase: "deadline",
        timeout: deadline,
      },
    );
  }
  return undefined;
}
