import type { EnvelopeErrorFault, MalformedJsonFault, StatusFault, TruncatedJsonFault } from "../fake/faults.ts";
import { errorBody, jsonResponse } from "./envelope.ts";

const defaultCodes: Readonly<Record<number, string>> = {
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
};

const reasons: Readonly<Record<number, string>> = {
  429: "Too many requests. Slow down and retry later.",
  500: "An internal server error occurred.",
  502: "Bad gateway.",
  503: "The service is temporarily unavailable.",
  504: "The gateway timed out.",
};

/** The response of an injected HTTP error status. */
export function statusFaultResponse(fault: StatusFault): Response {
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
  const reason = reasons[fault.status] ?? `HTTP ${fault.status}`;
  switch (fault.body ?? "envelope") {
    case "empty":
      return new Response(null, { status: fault.status, headers });
    case "text":
      return new Response(`${fault.status} ${reason}\n`, {
        status: fault.status,
        headers: { ...headers, "content-type": "text/plain; charset=utf-8" },
      });
    default:
      return jsonResponse(
        fault.status,
        errorBody(fault.errorCode ?? defaultCodes[fault.status] ?? `HTTP_${fault.status}`, [reason]),
        headers,
      );
  }
}

/** HTTP 200 whose envelope says `hasError: true`. */
export function envelopeErrorResponse(fault: EnvelopeErrorFault): Response {
  return jsonResponse(
    200,
    errorBody(fault.errorCode ?? "INTERNAL_ERROR", [fault.message ?? "The request could not be processed."]),
  );
}

/** The real response with its body made invalid (malformed) or cut short (truncated). */
export async function corruptResponse(
  response: Response,
  fault: MalformedJsonFault | TruncatedJsonFault,
): Promise<Response> {
  const text = await response.text();
  let body: string;
  if (fault.kind === "malformed-json") {
    // A trailing comma: the commonest hand-made JSON mistake, and invalid for every parser.
    body = text.endsWith("}") ? `${text.slice(0, -1)},}` : `${text},`;
  } else {
    const keep = fault.keep ?? 0.5;
    body = text.slice(0, Math.min(text.length - 1, Math.floor(text.length * keep)));
  }
  return new Response(body, { status: response.status, headers: response.headers });
}
