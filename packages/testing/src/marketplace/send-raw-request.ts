import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { HostileRequest, HostileResponse } from "./hostile-types.ts";

/** Most of a response body kept: enough for any error message, bounded against a hostile answer. */
const MAX_KEPT_BODY_BYTES = 64 * 1024;

/** An answer, or why none came. */
export type RawOutcome =
  | { readonly response: HostileResponse; readonly error?: undefined }
  | { readonly response?: undefined; readonly error: string };

/**
 * Sends one request over node:http(s) with the request target and `Host` header exactly as
 * given: `fetch` would normalise the target and refuses to set `Host`, which the attacks need.
 */
export function sendRawRequest(
  origin: URL,
  request: HostileRequest & { readonly host: string },
  timeoutMs: number,
): Promise<RawOutcome> {
  const send = origin.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
    const outgoing = send({
      protocol: origin.protocol,
      hostname: origin.hostname.replace(/^\[|\]$/g, ""),
      port: origin.port === "" ? undefined : Number(origin.port),
      method: request.method,
      path: request.target,
      setHost: false,
      headers: {
        host: request.host,
        ...request.headers,
        ...(body === undefined ? {} : { "content-length": String(body.byteLength) }),
      },
      agent: false,
      timeout: timeoutMs,
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on("error", (error) => {
      resolve({ error: error.message });
    });
    outgoing.on("response", (message) => {
      void readResponse(message).then(
        (response) => {
          resolve({ response });
        },
        (error: unknown) => {
          resolve({ error: error instanceof Error ? error.message : String(error) });
        },
      );
    });
    outgoing.end(body);
  });
}

async function readResponse(message: IncomingMessage): Promise<HostileResponse> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of message as AsyncIterable<Buffer>) {
    if (kept >= MAX_KEPT_BODY_BYTES) continue;
    const slice = chunk.subarray(0, MAX_KEPT_BODY_BYTES - kept);
    chunks.push(slice);
    kept += slice.byteLength;
  }
  // fromEntries defines own properties: a header named __proto__ stays a header.
  const headers = Object.fromEntries(
    Object.entries(message.headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]],
    ),
  );
  return { status: message.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") };
}
