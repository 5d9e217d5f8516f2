import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import type { RouteDoc } from "./route-doc.ts";
import type { Reply } from "./respond.ts";

/*
 * A feature's routes, each row holding everything about one route in one place: method, path,
 * who may call it, its handler and how `/openapi.json` describes it (the zod schemas its docs
 * name travel with the module). `service.ts` composes the modules; the server routes them and
 * the OpenAPI builder documents them, so a route exists in exactly one place (hono's
 * `app.route()`, verdaccio's route modules).
 */

/** One request as a handler sees it. */
export interface RouteRequest {
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  /** Aborts when the client goes away (ends a long-poll early). */
  readonly signal: AbortSignal;
  /** The request as received: its body, and its target unaltered (signatures are over it). */
  readonly incoming: IncomingMessage;
  /** The origin of the listener that took the request (`http://127.0.0.1:8787`), from the configuration, never from `Host`. */
  readonly origin: string;
  /** The client's address: the socket's, or X-Forwarded-For's nearest untrusted one behind SYNC_TRUSTED_PROXIES. */
  readonly clientAddress: string;
}

/** A route handler. */
export type RouteHandler = (request: RouteRequest) => Promise<Reply>;

/**
 * Who may call a route (route-access.ts holds what each level takes):
 * - `open`: anyone (probes, the status page and the contract);
 * - `router`: what a respondent-facing router calls (match, entry links, sessions): `Authorization:
 *   Bearer` with SYNC_ROUTER_TOKEN or SYNC_API_TOKEN when SYNC_API_TOKEN is set, plus the Host and Origin guards;
 * - `operator`: every other `/v1` route: SYNC_API_TOKEN only when set, plus the guards;
 * - `metrics`: `/metrics`: SYNC_METRICS_TOKEN (or SYNC_API_TOKEN) once SYNC_METRICS_TOKEN is set, else open;
 * - `signature`: the marketplace's S2S calls and the respondent's browser, which check their own signature instead.
 */
export type RouteAccess = "open" | "router" | "operator" | "metrics" | "signature";

/**
 * The two listeners of sds-sync: the private API, and the S2S outcome receiver the marketplace
 * calls (its own host and port when `SYNC_OUTCOMES_PORT` is set). A route names one; a server
 * serves one or both (`server.ts`).
 */
export type Listener = "api" | "outcomes";

/** One route. */
export interface RouteRow<SchemaName extends string = string, BodyName extends string = string> {
  readonly method: "GET" | "POST" | "DELETE";
  /** A path template of the shared router (`{param}` segments). */
  readonly path: string;
  readonly access: RouteAccess;
  /**
   * The listener that serves it: the private API, or the S2S outcome receiver (on its own
   * listener when `SYNC_OUTCOMES_PORT` is set, else on the API's). @default "api"
   */
  readonly listener?: Listener;
  readonly handler: RouteHandler;
  readonly doc: RouteDoc<SchemaName, BodyName>;
}

/** A feature's routes by operation id, with the schemas their docs name. */
export interface RouteModule {
  /** Response bodies by component name. */
  readonly schemas: Readonly<Record<string, z.ZodType>>;
  /** Request bodies by component name. */
  readonly bodies: Readonly<Record<string, z.ZodType>>;
  readonly routes: Readonly<Record<string, RouteRow>>;
}

/** The response schema every module may name without declaring it: the errorReply body. */
export type SharedSchemaName = "ErrorBody";

/**
 * Declares a feature's route module; the compiler checks that every schema a doc names is one
 * the module carries.
 *
 * @example
 * ```ts
 * export const probeRoutes = (context: ProbeContext) =>
 *   defineRoutes({ schemas: { Health }, routes: { healthz: { method: "GET", path: "/healthz", access: "open", handler: …, doc: … } } });
 * ```
 */
export function defineRoutes<
  const Schemas extends Record<string, z.ZodType>,
  const Bodies extends Record<string, z.ZodType>,
>(module: {
  readonly schemas: Schemas;
  readonly bodies?: Bodies;
  readonly routes: Readonly<
    Record<string, RouteRow<(keyof Schemas & string) | SharedSchemaName, keyof Bodies & string>>
  >;
}): RouteModule {
  return { schemas: module.schemas, bodies: module.bodies ?? {}, routes: module.routes };
}
