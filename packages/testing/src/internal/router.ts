import { operationIds, operations, type OperationId } from "@sds/schemas";

/** The outcome of matching a method and path against a route table. */
export type RouteMatch<Id extends string> =
  | { readonly kind: "matched"; readonly id: Id; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "method-not-allowed"; readonly allow: readonly string[] }
  | { readonly kind: "not-found" }
  | { readonly kind: "bad-encoding" };

/** One route: a method and a path template with `{param}` segments. */
export interface RouteDefinition<Id extends string> {
  readonly id: Id;
  readonly method: string;
  readonly path: string;
}

type Segment = { readonly literal: string } | { readonly param: string };

interface CompiledRoute<Id extends string> {
  readonly id: Id;
  readonly method: string;
  readonly segments: readonly Segment[];
}

/** Matches requests against a fixed set of routes; routes are grouped by segment count so a match tries only a few. */
export interface Router<Id extends string> {
  match(method: string, path: string): RouteMatch<Id>;
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

/** Builds a router. Matching is exact and case-sensitive: a trailing slash is a different path. */
export function createRouter<Id extends string>(routes: readonly RouteDefinition<Id>[]): Router<Id> {
  const byLength = new Map<number, CompiledRoute<Id>[]>();
  for (const route of routes) {
    const segments = compile(route.path);
    const group = byLength.get(segments.length) ?? [];
    group.push({ id: route.id, method: route.method, segments });
    byLength.set(segments.length, group);
  }

  return {
    match(method, path) {
      if (!path.startsWith("/")) return { kind: "not-found" };
      const parts = path.split("/").slice(1);
      const allow: string[] = [];
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
              return { kind: "bad-encoding" };
            }
          }
        }
        if (!matches) continue;
        if (route.method === method) return { kind: "matched", id: route.id, params };
        allow.push(route.method);
      }
      return allow.length > 0 ? { kind: "method-not-allowed", allow } : { kind: "not-found" };
    },
  };
}

/** The router of the service itself, built from the `operations` table of `@sds/schemas`. */
export const operationRouter: Router<OperationId> = createRouter(
  operationIds.map((id) => ({ id, method: operations[id].method, path: operations[id].path })),
);
