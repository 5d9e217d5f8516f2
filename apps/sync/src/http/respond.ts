import type { ServerResponse } from "node:http";

/** A handler's answer: status, body (serialised as JSON unless it is text) and headers. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Send `body` as it is, with this content type, instead of JSON. */
  readonly contentType?: string;
  /** Bytes already serialised (and perhaps compressed: say so in `headers`), sent as they are. */
  readonly bytes?: Buffer;
}

/** A JSON reply. */
export const json = (status: number, body: unknown, headers?: Readonly<Record<string, string>>): Reply =>
  headers ? { status, body, headers } : { status, body };

/** The error body every non-2xx JSON answer uses: a stable code and a human message. */
export const errorReply = (
  status: number,
  code: string,
  message: string,
  headers?: Readonly<Record<string, string>>,
): Reply => json(status, { error: { code, message } }, headers);

/** Writes a reply, unless the client has already gone. */
export function send(response: ServerResponse, reply: Reply): void {
  if (response.writableEnded || response.destroyed) return;
  const payload =
    reply.bytes ?? (reply.status === 304 ? "" : reply.contentType ? String(reply.body) : JSON.stringify(reply.body));
  response.writeHead(reply.status, {
    "content-type": reply.contentType ?? "application/json; charset=utf-8",
    ...(reply.status === 304
      ? {}
      : { "content-length": typeof payload === "string" ? Buffer.byteLength(payload) : payload.byteLength }),
    "cache-control": "no-store",
    // No answer of sds-sync's is worth a Referer: the respondent page's URLs hold session ids,
    // and the router's own 404 and 405 (before any page handler runs) must not leak them either.
    "referrer-policy": "no-referrer",
    ...reply.headers,
  });
  response.end(payload);
}
