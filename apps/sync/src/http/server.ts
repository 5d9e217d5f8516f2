import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRouter, type RouteMatch } from "@sds/schemas";
import type { Logger } from "pino";
import { PortInUseError, SyncError } from "../common/errors.ts";
import { hasBearerToken } from "./auth.ts";
import { createRequestGuard, type RequestGuard } from "./request-guard.ts";
import { buildSyncOpenApiDocument, routeDocs } from "./openapi-document.ts";
import { errorReply, send, type Reply } from "./respond.ts";
import * as routes from "./routes.ts";
import { issueEntryLink, match as matchRespondent } from "../loop/match-routes.ts";
import { listOutcomes, receiveOutcome } from "../loop/outcome-routes.ts";
import { statusPage, statusScript, statusStyle } from "../status-page/status-page.ts";

/** Options of {@link startApiServer}. */
export interface ApiServerOptions {
  readonly context: routes.RouteContext;
  readonly host: string;
  readonly port: number;
  /** Bearer token every `/v1` route requires; none when undefined. */
  readonly apiToken: string | undefined;
  readonly logger: Logger;
  /**
   * Which routes this listener serves: the private API, the S2S outcome receiver (its own
   * host/port when `SYNC_OUTCOMES_PORT` is set), or both. @default "both"
   */
  readonly serve?: "api" | "outcomes" | "both";
  /** `SYNC_ALLOWED_HOSTS` (see request-guard.ts). @default [] */
  readonly allowedHosts?: readonly string[] | "any" | undefined;
  /** `SYNC_ALLOWED_ORIGINS`. @default [] */
  readonly allowedOrigins?: readonly string[] | undefined;
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
  /** A path template of the shared router (`{param}` segments). */
  readonly path: string;
  readonly handler: routes.Handler;
  readonly authenticated: boolean;
  /** A route of the S2S outcome receiver: authenticated by signature, reachable by the marketplace. */
  readonly receiver?: boolean;
}

let openApiJson: string | undefined;
/** `GET /openapi.json`: open like `/metrics` (it holds no data, only the contract, and tools fetch it without credentials). */
const openApi: routes.Handler = () => {
  openApiJson ??= JSON.stringify(buildSyncOpenApiDocument(table, routeDocs));
  return Promise.resolve({ status: 200, body: openApiJson, contentType: "application/json; charset=utf-8" });
};

/** Every route of the API, by name. */
const table = {
  statusPage: { method: "GET", path: "/", handler: statusPage, authenticated: false },
  statusScript: { method: "GET", path: "/status.js", handler: statusScript, authenticated: false },
  statusStyle: { method: "GET", path: "/status.css", handler: statusStyle, authenticated: false },
  openApi: { method: "GET", path: "/openapi.json", handler: openApi, authenticated: false },
  healthz: { method: "GET", path: "/healthz", handler: routes.healthz, authenticated: false },
  readyz: { method: "GET", path: "/readyz", handler: routes.readyz, authenticated: false },
  metrics: { method: "GET", path: "/metrics", handler: routes.metrics, authenticated: false },
  listSurveys: { method: "GET", path: "/v1/surveys", handler: routes.listSurveys, authenticated: true },
  getSurvey: { method: "GET", path: "/v1/surveys/{id}", handler: routes.getSurvey, authenticated: true },
  listChanges: { method: "GET", path: "/v1/changes", handler: routes.listChanges, authenticated: true },
  listCollections: { method: "GET", path: "/v1/collections", handler: routes.listCollections, authenticated: true },
  syncStatus: { method: "GET", path: "/v1/sync/status", handler: routes.syncStatus, authenticated: true },
  runSync: { method: "POST", path: "/v1/sync/run", handler: routes.runSync, authenticated: true },
  confirmClosures: { method: "POST", path: "/v1/sync/closures/confirm", handler: routes.confirmClosures, authenticated: true },
  match: { method: "POST", path: "/v1/match", handler: matchRespondent, authenticated: true },
  issueEntryLink: { method: "POST", path: "/v1/entry-links", handler: issueEntryLink, authenticated: true },
  listOutcomes: { method: "GET", path: "/v1/outcomes", handler: listOutcomes, authenticated: true },
  receiveOutcome: { method: "GET", path: "/v1/outcomes/{outcome}", handler: receiveOutcome, authenticated: false, receiver: true },
  receiveOutcomeByPost: { method: "POST", path: "/v1/outcomes/{outcome}", handler: receiveOutcome, authenticated: false, receiver: true },
} as const satisfies Record<string, Route>;
type RouteId = keyof typeof table;

type Served = NonNullable<ApiServerOptions["serve"]>;

/** One router per listener kind: the private API, the outcome receiver, or both on one listener. */
function routerFor(serve: Served) {
  const entries = Object.entries(table) as [RouteId, Route][];
  const served = entries.filter(([, route]) => (route.receiver === true ? serve !== "api" : serve !== "outcomes"));
  return createRouter(served.map(([id, route]) => ({ id, method: route.method, path: route.path })));
}
const routers = { api: routerFor("api"), outcomes: routerFor("outcomes"), both: routerFor("both") } as const;

/**
 * Starts the HTTP API on `node:http`. Every answer is JSON (except `/metrics`); a bad parameter
 * is a 400 naming it, an unknown path 404, a wrong method 405, an unavailable store 503. With a
 * token configured, every `/v1` route needs `Authorization: Bearer <token>`; the probes and
 * `/metrics` stay open for orchestrators and scrapers.
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  // The request listener is attached once listening: the guard needs the port (0 picks one).
  const server = createServer();
  // Long-polls may legitimately idle for up to a minute.
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
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
  const guard = createRequestGuard({ bindHost: options.host, port: address.port, allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedOrigins ?? [] });
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    void handle(options, guard, request, response, (reply) => {
      // While closing, every answer ends its connection, so a keep-alive client does not hold shutdown.
      if (state.closing) response.setHeader("connection", "close");
      send(response, reply);
    });
  });
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `http://${host}:${address.port}`, port: address.port, close: (graceMs) => closeServer(server, state, graceMs ?? 3000) };
}

async function handle(options: ApiServerOptions, guard: RequestGuard, request: IncomingMessage, response: ServerResponse, answer: (reply: Reply) => void): Promise<void> {
  const abort = new AbortController();
  response.on("close", () => {
    abort.abort();
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
  const match = routers[options.serve ?? "both"].match(request.method ?? "GET", path);
  if (match.kind !== "matched") {
    answer(unmatchedReply(match, request.method ?? "?", path));
    request.resume();
    return;
  }
  const route: Route = table[match.id];
  // The outcome receiver is called by the marketplace under its public name and checks signatures instead.
  const refusal = route.receiver === true ? undefined : ((route.authenticated ? guard.checkHost(request) : undefined) ?? (route.method === "GET" ? undefined : guard.checkOrigin(request)));
  if (refusal) {
    answer(refusal);
    request.resume();
    return;
  }
  if (route.authenticated && options.apiToken !== undefined && !hasBearerToken(request.headers.authorization, options.apiToken)) {
    answer(errorReply(401, "unauthorized", "this route needs Authorization: Bearer <SYNC_API_TOKEN>", { "www-authenticate": 'Bearer realm="sds-sync"' }));
    request.resume();
    return;
  }
  let reply: Reply;
  try {
    reply = await route.handler(options.context, { url, params: match.params, signal: abort.signal, incoming: request });
  } catch (error) {
    reply = errorToReply(error, options.logger, path);
  }
  // Drains whatever body the handler did not read, so the connection can be reused.
  request.resume();
  answer(reply);
}

function unmatchedReply(match: Exclude<RouteMatch<RouteId>, { kind: "matched" }>, method: string, path: string): Reply {
  switch (match.kind) {
    case "method-not-allowed":
      return errorReply(405, "method_not_allowed", `${method} is not allowed on ${path}`, { allow: match.allow.join(", ") });
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
