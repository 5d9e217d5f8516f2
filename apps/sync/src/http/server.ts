import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRouter, type RouteMatch } from "@sds/schemas/internal/router";
import type { Logger } from "pino";
import { PortInUseError, SyncError } from "../common/errors.ts";
import { clientAddressOf, type ClientAddressOf } from "./client-address.ts";
import { limitConnections, type ConnectionLimits } from "./connection-limits.ts";
import { createRequestGuard, type RequestGuard } from "./request-guard.ts";
import { errorReply, send, type Reply } from "./respond.ts";
import { isHostGuarded, refuseAccess, type AccessTokens } from "./route-access.ts";
import type { Listener, RouteModule, RouteRow } from "./route-module.ts";

/** Options of {@link startApiServer}. */
export interface ApiServerOptions {
  /** The route modules this listener serves (those of its kind, see `serve`). */
  readonly modules: readonly RouteModule[];
  readonly host: string;
  readonly port: number;
  /** The tokens the routes ask for by their access level (route-access.ts); none set: every route is open. */
  readonly tokens: AccessTokens;
  readonly logger: Logger;
  /**
   * Which listener's routes this server serves (a route row's `listener`): the private API, the
   * S2S outcome receiver (its own host/port when `SYNC_OUTCOMES_PORT` is set), or both. @default "both"
   */
  readonly serve?: Listener | "both";
  /** `SYNC_ALLOWED_HOSTS` (see request-guard.ts). @default [] */
  readonly allowedHosts?: readonly string[] | "any" | undefined;
  /** `SYNC_ALLOWED_ORIGINS`. @default [] */
  readonly allowedOrigins?: readonly string[] | undefined;
  /** `SYNC_TRUSTED_PROXIES`: peers whose X-Forwarded-For names the client (see client-address.ts). @default [] */
  readonly trustedProxies?: readonly string[] | undefined;
  /** `SYNC_MAX_CONNECTIONS` and `SYNC_MAX_CONNECTIONS_PER_ADDRESS` (see connection-limits.ts). @default no caps */
  readonly connections?: Omit<ConnectionLimits, "trustedProxies"> | undefined;
  /**
   * How long a client may take to send a request's headers, from its connection on; then 408 and
   * the connection closes (slow-loris). The receiver's is `SYNC_OUTCOMES_HEADERS_TIMEOUT`. @default 30000
   */
  readonly headersTimeoutMs?: number | undefined;
  /** How long a client may take to send a whole request (headers and body); then 408. @default 120000 (long-polls idle up to a minute) */
  readonly requestTimeoutMs?: number | undefined;
}

/** How long an idle keep-alive connection stays open between two requests. */
const KEEP_ALIVE_TIMEOUT_MS = 5000;

/** A listening API server. */
export interface ApiServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, lets in-flight requests finish for up to `graceMs`, then drops the rest. */
  close(graceMs?: number): Promise<void>;
}

type Served = NonNullable<ApiServerOptions["serve"]>;

/** The router of one server over the rows it serves: the private API's, the outcome receiver's, or both. */
function routerFor(modules: readonly RouteModule[], serve: Served) {
  const rows = new Map<string, RouteRow>();
  for (const module of modules) {
    for (const [id, row] of Object.entries(module.routes)) {
      if (serve === "both" || serve === (row.listener ?? "api")) rows.set(id, row);
    }
  }
  return { rows, router: createRouter([...rows].map(([id, row]) => ({ id, method: row.method, path: row.path }))) };
}

/**
 * Starts the HTTP API on `node:http`. Every answer is JSON (except `/metrics`); a bad parameter
 * is a 400 naming it, an unknown path 404, a wrong method 405, an unavailable store 503. With
 * tokens configured, each route asks for those of its access level (route-access.ts); the
 * probes stay open for orchestrators.
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  // The request listener is attached once listening: the guard needs the port (0 picks one).
  const headersTimeout = options.headersTimeoutMs ?? 30_000;
  // Timeouts are checked every this often: a short header timeout needs a short check to hold.
  const server = createServer({ connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeout / 2)) });
  // Long-polls may legitimately idle for up to a minute.
  server.requestTimeout = Math.max(options.requestTimeoutMs ?? 120_000, headersTimeout);
  server.headersTimeout = headersTimeout;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  if (options.connections)
    limitConnections(server, { ...options.connections, trustedProxies: options.trustedProxies ?? [] });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(error.code === "EADDRINUSE" ? new PortInUseError(options.host, options.port, { cause: error }) : error);
    });
    server.listen(options.port, options.host, () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const state: ServerState = { closing: false };
  const routing = routerFor(options.modules, options.serve ?? "both");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  const guard = createRequestGuard({
    bindHost: options.host,
    port: address.port,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
  });
  const clientAddress = clientAddressOf(options.trustedProxies ?? []);
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    void handle(options, routing, guard, clientAddress, origin, request, response, (reply) => {
      // While closing, every answer ends its connection, so a keep-alive client does not hold shutdown.
      if (state.closing) response.setHeader("connection", "close");
      send(response, reply);
    });
  });
  // Closing twice (a stop that begins it early, then the clean-up stack) waits for the same close.
  let closed: Promise<void> | undefined;
  return {
    url: origin,
    port: address.port,
    close: (graceMs) => (closed ??= closeServer(server, state, graceMs ?? 3000)),
  };
}

async function handle(
  options: ApiServerOptions,
  routing: ReturnType<typeof routerFor>,
  guard: RequestGuard,
  clientAddress: ClientAddressOf,
  origin: string,
  request: IncomingMessage,
  response: ServerResponse,
  answer: (reply: Reply) => void,
): Promise<void> {
  const abort = new AbortController();
  response.on("close", () => {
    // Only a client that left before its answer needs the abort (a long-poll ending early); building
    // the abort's DOMException for every finished answer cost a few percent of a match.
    if (!response.writableFinished) abort.abort();
  });
  let url: URL;
  try {
    // Concatenated, not resolved against a base: "//x/y" must stay a path, not name a host.
    const target = request.url ?? "/";
    url = new URL(target.startsWith("/") ? `http://sds-sync.invalid${target}` : target);
  } catch {
    answer(errorReply(400, "bad_request", "malformed request target"));
    return;
  }
  const path = url.pathname;
  const match = routing.router.match(request.method ?? "GET", path);
  if (match.kind !== "matched") {
    answer(unmatchedReply(match, request.method ?? "?", path));
    request.resume();
    return;
  }
  const route = routing.rows.get(match.id);
  if (!route) throw new Error(`the router matched ${match.id}, which no module declares`);
  // The outcome receiver is called by the marketplace under its public name and checks signatures instead.
  const refusal =
    route.access === "signature"
      ? undefined
      : ((isHostGuarded(route.access) ? guard.checkHost(request) : undefined) ??
        (route.method === "GET" ? undefined : guard.checkOrigin(request)) ??
        refuseAccess(route.access, request.headers.authorization, options.tokens));
  if (refusal) {
    answer(refusal);
    request.resume();
    return;
  }
  let reply: Reply;
  try {
    reply = await route.handler({
      url,
      params: match.params,
      signal: abort.signal,
      incoming: request,
      origin,
      clientAddress: clientAddress(request),
    });
  } catch (error) {
    reply = errorToReply(error, options.logger, path);
  }
  // Drains whatever body the handler did not read, so the connection can be reused.
  request.resume();
  answer(reply);
}

function unmatchedReply(match: Exclude<RouteMatch<string>, { kind: "matched" }>, method: string, path: string): Reply {
  switch (match.kind) {
    case "method-not-allowed":
      return errorReply(405, "method_not_allowed", `${method} is not allowed on ${path}`, {
        allow: match.allow.join(", "),
      });
    case "bad-encoding":
      return errorReply(400, "bad_request", `${match.param}: is not valid percent-encoding`);
    case "not-found":
      return errorReply(404, "not_found", `no route ${path}`);
  }
}

/** The answer to a handler's error: its own HTTP meaning when it has one, else 500 (and the log). */
function errorToReply(error: unknown, logger: Logger, path: string): Reply {
  const meaning = error instanceof SyncError ? error.http : undefined;
  if (meaning) {
    if (meaning.logged) logger.error({ err: error, path }, `${meaning.code} while serving a request`);
    return errorReply(meaning.status, meaning.code, meaning.message, meaning.headers);
  }
  logger.error({ err: error, path }, "unexpected error while serving a request");
  return errorReply(500, "internal_error", "unexpected error; see the service log");
}

interface ServerState {
  closing: boolean;
}

/**
 * Stops listening and closes every connection as soon as it is idle: idle keep-alive sockets at
 * once, busy ones right after their answer (which says `Connection: close`), the rest after `graceMs`.
 */
async function closeServer(server: Server, state: ServerState, graceMs: number): Promise<void> {
  state.closing = true;
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
