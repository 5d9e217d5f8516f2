/*
 * The one HTTP router of the project: the fake of @sds/testing routes the operations table and
 * its control API with it, and sds-sync routes its read API with it. It lives here because this
 * is the lowest package both depend on at run time, and because the paths it matches are the
 * contract's own (`operations[id].path`, `{param}` templates).
 *
 * Not public API: it is reached through `@sds/schemas/internal/router` by this repository's own
 * packages only, is left out of the API report, and may change in any release.
 *
 * A library router (hono's RegExpRouter and friends) would match as fast but would still need
 * this file's policy around it (405 with `Allow`, HEAD on GET routes, percent-decoding of
 * parameters, one trailing-slash rule), and would add a run-time dependency to both packages
 * for about thirty lines of matching.
 */

/** The outcome of matching a method and path against a route table. */
export type RouteMatch<Id extends string> =
  | { readonly kind: "matched"; readonly id: Id; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "method-not-allowed"; readonly allow: readonly string[] }
  | { readonly kind: "not-found" }
  /** A `{param}` segment was not valid percent-encoding: `param` names it. */
  | { readonly kind: "bad-encoding"; readonly param: string };

/** One route: a method and a path template with `{param}` segments, such as `/surveys/{surveyId}`. */
export interface RouteDefinition<Id extends string> {
  readonly id: Id;
  readonly method: string;
  readonly path: string;
}

/** Matches a method and a path (no query) against a fixed table of routes. */
export interface Router<Id extends string> {
  match(method: string, path: string): RouteMatch<Id>;
}

type Segment = { readonly literal: string } | { readonly param: string };

interface CompiledRoute<Id extends string> {
  readonly id: Id;
  readonly method: string;
  readonly segments: readonly Segment[];
}

function compile(path: string): Segment[] {
  return path
    .split("/")
    .slice(1)
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      return param === undefined ? { literal: segment } : { param };
    });
}

/** Picks the route for the method among routes whose path matched; HEAD falls back to GET. */
function choose<Id extends string>(
  method: string,
  candidates: readonly { readonly route: CompiledRoute<Id>; readonly params: Readonly<Record<string, string>> }[],
): RouteMatch<Id> {
  if (candidates.length === 0) return { kind: "not-found" };
  const exact = candidates.find((candidate) => candidate.route.method === method);
  const chosen =
    exact ?? (method === "HEAD" ? candidates.find((candidate) => candidate.route.method === "GET") : undefined);
  if (chosen) return { kind: "matched", id: chosen.route.id, params: chosen.params };
  return { kind: "method-not-allowed", allow: [...new Set(candidates.map((candidate) => candidate.route.method))] };
}

const noParams: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Builds a router. The rules, the same for every table:
 * - matching is exact and case-sensitive: a trailing slash is a different path (`/v1/surveys/`
 *   is not `/v1/surveys`), as is a doubled slash;
 * - a `{param}` segment matches one non-empty segment, percent-decoded (invalid percent-encoding
 *   is `bad-encoding`, so the caller can answer 400 rather than 404);
 * - a path that exists under other methods is `method-not-allowed` with those methods, in table
 *   order (for an `Allow` header); HEAD is served by the GET route when there is no HEAD route;
 * - a path both a literal route and a `{param}` route match goes to the literal one.
 *
 * Paths without parameters are found in one map lookup; the others are tried among the routes
 * with the same number of segments.
 *
 * @example
 * ```ts
 * const router = createRouter([{ id: "getSurvey", method: "GET", path: "/v1/surveys/{id}" }]);
 * router.match("GET", "/v1/surveys/42"); // { kind: "matched", id: "getSurvey", params: { id: "42" } }
 * router.match("POST", "/v1/surveys/42"); // { kind: "method-not-allowed", allow: ["GET"] }
 * ```
 */
export function createRouter<Id extends string>(routes: readonly RouteDefinition<Id>[]): Router<Id> {
  const staticRoutes = new Map<string, CompiledRoute<Id>[]>();
  const byLength = new Map<number, CompiledRoute<Id>[]>();
  for (const route of routes) {
    const segments = compile(route.path);
    const compiled = { id: route.id, method: route.method, segments };
    const isStatic = segments.every((segment) => "literal" in segment);
    const key = isStatic ? route.path : segments.length;
    const table: Map<string | number, CompiledRoute<Id>[]> = isStatic ? staticRoutes : byLength;
    const group = table.get(key) ?? [];
    group.push(compiled);
    table.set(key, group);
  }

  return {
    match(method, path) {
      if (!path.startsWith("/")) return { kind: "not-found" };
      const candidates: { route: CompiledRoute<Id>; params: Readonly<Record<string, string>> }[] = [];
      for (const route of staticRoutes.get(path) ?? []) candidates.push({ route, params: noParams });
      if (byLength.size === 0) return choose(method, candidates);
      const parts = path.split("/").slice(1);
      for (const route of byLength.get(parts.length) ?? []) {
        const params: Record<string, string> = {};
        let matches = true;
        for (let index = 0; index < parts.length && matches; index++) {
          const segment = route.segments[index] as Segment;
          const part = parts[index] as string;
          if ("literal" in segment) {
            matches = segment.literal === part;
          } else if (part === "") {
            matches = false;
          } else {
            try {
              params[segment.param] = decodeURIComponent(part);
            } catch {
              return { kind: "bad-encoding", param: segment.param };
            }
          }
        }
        if (matches) candidates.push({ route, params });
      }
      return choose(method, candidates);
    },
  };
}
