import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { StoreError } from "../errors.ts";
import { hasBearerToken } from "./auth.ts";
import { ParamError } from "./params.ts";
import { errorReply, send, type Reply } from "./respond.ts";
import * as routes from "./routes.ts";

/** Options of {@link startApiServer}. */
export interface ApiServerOptions {
  readonly context: routes.RouteContext;
  readonly host: string;
  readonly port: number;
  /** Bearer token every `/v1` route requires; none when undefined. */
  readonly apiToken: string | undefined;
  readonly logger: Logger;
}

/** A listening API server. */
export interface ApiServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, lets in-flight requests finish for up to `graceMs`, then drops the rest. */
  close(graceMs?: number): Promise<void>;
}

interface Route {
  readonly method: "GET" | "POST";
  readonly pattern: RegExp;
  readonly handler: routes.Handler;
  readonly authenticated: boolean;
}

const table: readonly Route[] = [
  { method: "GET", pattern: /^\/healthz$/, handler: routes.healthz, authenticated: false },
  { method: "GET", pattern: /^\/readyz$/, handler: routes.readyz, authenticated: false },
  { method: "GET", pattern: /^\/metrics$/, handler: routes.metrics, authenticated: false },
  { method: "GET", pattern: /^\/v1\/surveys$/, handler: routes.listSurveys, authenticated: true },
  { method: "GET", pattern: /^\/v1\/surveys\/(?<id>[^/]+)$/, handler: routes.getSurvey, authenticated: true },
  { method: "GET", pattern: /^\/v1\/changes$/, handler: routes.listChanges, authenticated: true },
  { method: "GET", pattern: /^\/v1\/collections$/, handler: routes.listCollections, authenticated: true },
  { method: "GET", pattern: /^\/v1\/sync\/status$/, handler: routes.syncStatus, authenticated: true },
  { method: "POST", pattern: /^\/v1\/sync\/run$/, handler: routes.runSync, authenticated: true },
];

/**
 * Starts the HTTP API on `node:http`. Every answer is JSON (except `/metrics`); a bad parameter
 * is a 400 naming it, an unknown path 404, a wrong method 405, an unavailable store 503. With a
 * token configured, every `/v1` route needs `Authorization: Bearer <token>`; the probes and
 * `/metrics` stay open for orchestrators and scrapers.
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const server = createServer((request, response) => {
    void handle(options, request, response);
  });
  // Long-polls may legitimately idle for up to a minute.
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `http://${host}:${address.port}`, port: address.port, close: (graceMs) => closeServer(server, graceMs ?? 3000) };
}

async function handle(options: ApiServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const abort = new AbortController();
  response.on("close", () => {
    abort.abort();
  });
  let url: URL;
  try {
    url = new URL(request.url ?? "/", "http://sds-sync.invalid");
  } catch {
    send(response, errorReply(400, "bad_request", "malformed request target"));
    return;
  }
  const path = url.pathname.replace(/\/+$/, "") || "/";
  const matches = table.map((route) => ({ route, match: route.pattern.exec(path) })).filter((entry) => entry.match !== null);
  const found = matches.find((entry) => entry.route.method === request.method || (request.method === "HEAD" && entry.route.method === "GET"));
  if (!found) {
    send(
      response,
      matches.length > 0
        ? errorReply(405, "method_not_allowed", `${request.method ?? "?"} is not allowed on ${path}`, { allow: matches.map((entry) => entry.route.method).join(", ") })
        : errorReply(404, "not_found", `no route ${path}`),
    );
    request.resume();
    return;
  }
  if (found.route.authenticated && options.apiToken !== undefined && !hasBearerToken(request.headers.authorization, options.apiToken)) {
    send(response, errorReply(401, "unauthorized", "this route needs Authorization: Bearer <SYNC_API_TOKEN>", { "www-authenticate": 'Bearer realm="sds-sync"' }));
    request.resume();
    return;
  }
  request.resume();
  let reply: Reply;
  try {
    reply = await found.route.handler(options.context, { url, params: { ...found.match?.groups }, signal: abort.signal });
  } catch (error) {
    reply = errorToReply(error, options.logger, path);
  }
  send(response, reply);
}

function errorToReply(error: unknown, logger: Logger, path: string): Reply {
  if (error instanceof ParamError) return errorReply(400, "bad_request", error.message);
  const name = error instanceof Error ? error.name : "";
  if (name === "NotLeaderError") return errorReply(409, "not_leader", (error as Error).message);
  if (name === "ShuttingDownError") return errorReply(503, "shutting_down", "the service is shutting down");
  if (error instanceof StoreError || isDatabaseError(error)) {
    logger.error({ err: error, path }, "store unavailable while serving a request");
    return errorReply(503, "store_unavailable", "the store cannot be read right now; retry shortly");
  }
  logger.error({ err: error, path }, "unexpected error while serving a request");
  return errorReply(500, "internal_error", "unexpected error; see the service log");
}

/** Errors of the database drivers (connection refused, pool closed, SQLite busy) are availability problems, not bugs. */
function isDatabaseError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === "string" && (/^(ECONN|ETIMEDOUT|57P|08|53)/.test(code) || code.startsWith("ERR_SQLITE"))) || /pool|database|connection/i.test(error.message);
}

async function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  server.closeIdleConnections();
  const timer = setTimeout(() => {
    server.closeAllConnections();
  }, graceMs);
  await closed;
  clearTimeout(timer);
}
