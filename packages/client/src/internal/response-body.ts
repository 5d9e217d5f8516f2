/** A body read as JSON when it is JSON, else kept as text. */
export type ParsedBody =
  | { readonly json: true; readonly value: unknown }
  | { readonly json: false; readonly text: string; readonly reason: string };

/** Parses a response body once. An empty body is not JSON. */
export function parseBody(text: string): ParsedBody {
  if (text === "") return { json: false, text, reason: "the body is empty" };
  try {
    return { json: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { json: false, text, reason: `the body is not JSON (${(error as Error).message})` };
  }
}

/** The error fields of an envelope, read leniently from any body. */
export interface EnvelopeErrorFields {
  readonly hasError: boolean;
  readonly errorCode: string | undefined;
  readonly messages: readonly string[];
}

/**
 * Reads `hasError`, `error.errorCode` and `messages` from a body without trusting its shape:
 * error bodies are not shown in the spec, so each field is taken only when it has the
 * expected type.
 */
export function readEnvelopeError(body: unknown): EnvelopeErrorFields {
  if (typeof body !== "object" || body === null) return { hasError: false, errorCode: undefined, messages: [] };
  const { hasError, error, messages } = body as { hasError?: unknown; error?: unknown; messages?: unknown };
  const errorCode =
    typeof error === "object" && error !== null ? (error as { errorCode?: unknown }).errorCode : undefined;
  return {
    hasError: hasError === true,
    errorCode: typeof errorCode === "string" && errorCode !== "" ? errorCode : undefined,
    messages: Array.isArray(messages)
      ? messages.filter((message): message is string => typeof message === "string")
      : [],
  };
}

const requestIdHeaders = ["x-request-id", "request-id", "x-correlation-id", "x-amzn-requestid"];

/** The request id a server or gateway put in the response headers, if any. */
export function findRequestId(headers: Headers): string | undefined {
  for (const name of requestIdHeaders) {
    const value = headers.get(name);
    if (value) return value;
  }
  return undefined;
}
