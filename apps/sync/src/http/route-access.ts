import { isToken, presentedBearerToken } from "./auth.ts";
import { errorReply, type Reply } from "./respond.ts";
import type { RouteAccess } from "./route-module.ts";

/*
 * Which token opens which route (issue 32: one token opened every door). Each route row declares
 * its access level (route-module.ts); this table says what each level takes, and the server, the
 * OpenAPI document and the warnings all read it, so the scopes are decided in one place:
 * - `router`: what a respondent-facing router calls (match, entry links, sessions), with
 *   SYNC_ROUTER_TOKEN or SYNC_API_TOKEN, whenever SYNC_API_TOKEN is set;
 * - `operator`: everything else behind a token, with SYNC_API_TOKEN only;
 * - `metrics`: `/metrics`, with SYNC_METRICS_TOKEN (or SYNC_API_TOKEN) once SYNC_METRICS_TOKEN is set;
 * - `open` and `signature`: no token (the latter checks the marketplace's signature itself).
 */

/** The configured tokens (each unset when its variable is). */
export interface AccessTokens {
  /** `SYNC_API_TOKEN`: every route. */
  readonly api?: string | undefined;
  /** `SYNC_ROUTER_TOKEN`: the router routes only (it needs SYNC_API_TOKEN: config.ts checks). */
  readonly router?: string | undefined;
  /** `SYNC_METRICS_TOKEN`: `/metrics` only. */
  readonly metrics?: string | undefined;
}

type TokenName = keyof AccessTokens;

interface TokenKind {
  readonly variable: string;
  /** Its security scheme in `/openapi.json`. */
  readonly scheme: string;
  readonly opens: string;
}

const tokenKinds: Readonly<Record<TokenName, TokenKind>> = {
  api: { variable: "SYNC_API_TOKEN", scheme: "apiToken", opens: "every route behind a token" },
  router: {
    variable: "SYNC_ROUTER_TOKEN",
    scheme: "routerToken",
    opens: "the router's routes: match, entry links and sessions",
  },
  metrics: {
    variable: "SYNC_METRICS_TOKEN",
    scheme: "metricsToken",
    opens: "/metrics (Prometheus' authorization setting)",
  },
};

interface AccessRule {
  /** The token whose being set makes the route ask for one; none: the route never does. */
  readonly askedWhen?: TokenName;
  /** The tokens that open it, the most specific first. */
  readonly accepted: readonly TokenName[];
  /** Whether the Host guard (SYNC_ALLOWED_HOSTS) applies: the API's own routes, not the probes nor the marketplace's. */
  readonly hostGuarded: boolean;
}

const accessRules: Readonly<Record<RouteAccess, AccessRule>> = {
  open: { accepted: [], hostGuarded: false },
  signature: { accepted: [], hostGuarded: false },
  router: { askedWhen: "api", accepted: ["router", "api"], hostGuarded: true },
  operator: { askedWhen: "api", accepted: ["api"], hostGuarded: true },
  metrics: { askedWhen: "metrics", accepted: ["metrics", "api"], hostGuarded: false },
};

/** Whether the Host guard applies to routes of this access level. */
export const isHostGuarded = (access: RouteAccess): boolean => accessRules[access].hostGuarded;

/**
 * The refusal of a request to a route of this access level, or undefined when it may go on: 401
 * without a token that opens the route, 403 `insufficient_scope` for a configured token whose
 * scope does not cover it (the router's token on an operator route). Never echoes a token.
 */
export function refuseAccess(
  access: RouteAccess,
  authorization: string | undefined,
  tokens: AccessTokens,
): Reply | undefined {
  const rule = accessRules[access];
  if (rule.askedWhen === undefined || tokens[rule.askedWhen] === undefined) return undefined;
  const presented = presentedBearerToken(authorization);
  const configured = (Object.keys(tokenKinds) as TokenName[]).filter((name) => tokens[name] !== undefined);
  const matching = configured.filter((name) => isToken(presented, tokens[name] ?? ""));
  if (matching.some((name) => rule.accepted.includes(name))) return undefined;
  const wanted = rule.accepted
    .filter((name) => tokens[name] !== undefined)
    .map((name) => tokenKinds[name].variable)
    .join(" or ");
  if (matching.length > 0)
    return errorReply(403, "insufficient_scope", `this token does not open this route; it needs ${wanted}`, {
      "www-authenticate": 'Bearer realm="sds-sync", error="insufficient_scope"',
    });
  return errorReply(401, "unauthorized", `this route needs Authorization: Bearer <${wanted}>`, {
    "www-authenticate": 'Bearer realm="sds-sync"',
  });
}

/** A route's `security` in `/openapi.json`: the schemes of the tokens that open it; `{}` where none may be asked. */
export function securityOf(access: RouteAccess): Record<string, never[]>[] {
  const rule = accessRules[access];
  if (rule.askedWhen === undefined) return [];
  const schemes = rule.accepted.map((name) => ({ [tokenKinds[name].scheme]: [] }));
  // /metrics answers without a token until SYNC_METRICS_TOKEN is set, whatever SYNC_API_TOKEN is.
  return rule.askedWhen === "api" ? schemes : [...schemes, {}];
}

/** The `securitySchemes` of `/openapi.json`: one bearer scheme per token. */
export function securitySchemes(): Record<string, { type: "http"; scheme: "bearer"; description: string }> {
  return Object.fromEntries(
    Object.values(tokenKinds).map((kind) => [
      kind.scheme,
      { type: "http", scheme: "bearer", description: `${kind.variable}: opens ${kind.opens}.` },
    ]),
  );
}

/** Warnings for `/readyz` and the start's log: with no SYNC_API_TOKEN, anyone on the host can call every route. */
export function accessWarnings(tokens: AccessTokens): string[] {
  if (tokens.api !== undefined) return [];
  return [
    "SYNC_API_TOKEN is not set: anyone who can reach the API (every user and process on this host) can record entries, import history, reconcile outcomes and start runs; set SYNC_API_TOKEN, and give a respondent-facing router SYNC_ROUTER_TOKEN",
  ];
}
