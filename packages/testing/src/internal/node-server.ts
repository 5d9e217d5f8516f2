import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { FakeServer, ListenOptions } from "../fake/types.ts";
import { API_BASE_PATH } from "../fake/constants.ts";
import type { Outcome } from "./service.ts";

/*
 * node:http in front of the WHATWG request pipeline: each IncomingMessage becomes a Request,
 * each Outcome becomes bytes on the socket or a reset connection.
 */

/** Reads the body, keeping at most `limit` bytes; the rest is drained so the connection stays usable. */
function readBody(message: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    message.on("data", (chunk: Buffer) => {
      if (kept >= limit) return;
      const slice = chunk.subarray(0, limit - kept);
      chunks.push(slice);
      kept += slice.byteLength;
    });
    message.on("end", () => {
      resolve(Buffer.concat(chunks));
    });
    message.on("error", reject);
  });
}

function toHeaders(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    try {
      headers.append(rawHeaders[index] as string, rawHeaders[index + 1] as string);
    } catch {
      // A header value Headers refuses (rare control characters) is dropped, as a proxy would.
    }
  }
  return headers;
}

/**
 * The path and query of a request target. Origin-form targets are kept as they are (not resolved
 * as URLs, where "//x/api/v1" would turn "x" into a host); absolute-form targets lose their origin.
 */
function pathAndQuery(target: string): string {
  if (target.startsWith("/")) return target;
  if (!URL.canParse(target)) return "/";
  const url = new URL(target);
  return `${url.pathname}${url.search}`;
}

/** Kills the connection with a TCP reset, so the client sees ECONNRESET rather than a clean close. */
function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

/** Responses whose body is sent as it is produced (chunked), not buffered first: a trickle or a hang must reach the socket as one. */
const streamed = new WeakSet<Response>();

/** Marks a response to be streamed by the HTTP server rather than buffered. Returns it. */
export function markStreamed(response: Response): Response {
  streamed.add(response);
  return response;
}

async function respond(outcome: Outcome, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (outcome.kind === "reset") {
    resetSocket(request.socket);
    return;
  }
  const headers: Record<string, string> = {};
  outcome.response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (streamed.has(outcome.response) && outcome.response.body) {
    await streamBody(outcome.response.status, headers, outcome.response.body, response);
    return;
  }
  const body = Buffer.from(await outcome.response.arrayBuffer());
  headers["content-length"] = String(body.byteLength);
  response.writeHead(outcome.response.status, headers);
  response.end(body);
}

/** Sends the headers at once, then each chunk as the body yields it; stops reading when the client goes away. */
async function streamBody(
  status: number,
  headers: Record<string, string>,
  body: ReadableStream<Uint8Array>,
  response: ServerResponse,
): Promise<void> {
  delete headers["content-length"];
  response.writeHead(status, headers);
  response.flushHeaders();
  const reader = body.getReader();
  const onClose = () => void reader.cancel().catch(() => undefined);
  response.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!response.write(value)) await new Promise((resolve) => response.once("drain", resolve));
    }
    response.end();
  } finally {
    response.off("close", onClose);
  }
}

/**
 * What the server hands each request to: the request (its URL on a placeholder origin, as the
 * URL parser normalised it), when it arrived, and the request target exactly as received, for
 * handlers that must see the raw bytes (a signature covers them, never a re-encoding).
 */
export type NodeRequestHandler = (request: Request, receivedAt: number, rawTarget: string) => Promise<Outcome>;

/**
 * Starts an HTTP server that hands each request to `handle`. `maxBodyBytes` bounds what is
 * buffered: one byte more is kept so the pipeline can tell that a body was too large.
 */
export async function startNodeServer(
  handle: NodeRequestHandler,
  maxBodyBytes: number,
  options: ListenOptions,
): Promise<FakeServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError(`port must be an integer from 0 to 65535, got ${String(port)}`);

  const server = createServer((message, response) => {
    // Arrival: injected latency counts from here, so reading the body and building the Request count toward it.
    const receivedAt = performance.now();
    const aborted = new AbortController();
    response.on("close", () => {
      if (!response.writableFinished) aborted.abort(new Error("client disconnected"));
    });
    void (async () => {
      const method = message.method ?? "GET";
      const body = method === "GET" || method === "HEAD" ? undefined : await readBody(message, maxBodyBytes + 1);
      const rawTarget = message.url ?? "/";
      const request = new Request(`http://fake.invalid${pathAndQuery(rawTarget)}`, {
        method,
        headers: toHeaders(message.rawHeaders),
        ...(body === undefined || body.byteLength === 0 ? {} : { body: Uint8Array.from(body) }),
        signal: aborted.signal,
      });
      await respond(await handle(request, receivedAt, rawTarget), message, response);
    })().catch((error: unknown) => {
      if (aborted.signal.aborted) return;
      if (!response.headersSent) {
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        response.end(`fake server error: ${error instanceof Error ? error.message : String(error)}\n`);
      } else {
        response.destroy();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${hostForUrl}:${address.port}`;
  let closing: Promise<void> | undefined;
  return {
    origin,
    baseUrl: `${origin}${API_BASE_PATH}`,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
