/*
 * Response bodies. Every body the fake sends, success or error, carries the spec's envelope;
 * success bodies are assembled from strings so cached JSON (a 10,000-survey list) is not
 * parsed and re-serialized on every request.
 */

const OK_ENVELOPE_FIELDS = '"status":"ok","hasError":false,"messages":[],"error":{"errorCode":""}';

/** A success body: the envelope followed by `fields`, each value already serialized to JSON. */
export function okBodyFromJson(fields: Readonly<Record<string, string>>): string {
  let body = `{${OK_ENVELOPE_FIELDS}`;
  for (const [key, json] of Object.entries(fields)) body += `,${JSON.stringify(key)}:${json}`;
  return `${body}}`;
}

/** A success body: the envelope followed by `fields`. */
export function okBody(fields: Readonly<Record<string, unknown>> = {}): string {
  const serialized: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) serialized[key] = JSON.stringify(value);
  return okBodyFromJson(serialized);
}

/** The envelope alone with messages: what the update operations answer (Rule 3). */
export function confirmationBody(message: string): string {
  return JSON.stringify({ status: "ok", hasError: false, messages: [message], error: { errorCode: "" } });
}

/** An error body: `hasError: true`, a non-empty `errorCode`, and the reasons in `messages`. */
export function errorBody(errorCode: string, messages: readonly string[]): string {
  return JSON.stringify({ status: "error", hasError: true, messages, error: { errorCode } });
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A JSON response with the given status and already-serialized body. */
export function jsonResponse(status: number, body: string, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(body, { status, headers: { "content-type": JSON_CONTENT_TYPE, ...headers } });
}

/** An error response: status, envelope with `hasError: true`, and optional extra headers. */
export function errorResponse(
  status: number,
  errorCode: string,
  messages: readonly string[],
  headers: Readonly<Record<string, string>> = {},
): Response {
  return jsonResponse(status, errorBody(errorCode, messages), headers);
}
