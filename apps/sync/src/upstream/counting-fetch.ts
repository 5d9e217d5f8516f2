import { operationIds, operations, type OperationId } from "@sds/schemas";
import { createRouter } from "@sds/schemas/internal/router";
import type { OperationPaths } from "./operation-paths.ts";

/** A function with the signature of the global `fetch`. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Receives one line per HTTP request the wrapped fetch made. */
export type RequestObserver = (request: {
  readonly operation: OperationId | "unknown";
  readonly status: number;
  readonly durationMs: number;
}) => void;

/** The operation a request belongs to, from its method and URL; `"unknown"` when none matches. */
export type OperationMatcher = (method: string, url: string) => OperationId | "unknown";

/**
 * The matcher of upstream requests: the shared router (`@sds/schemas`) over the operations
 * table, with the paths of `SDS_OPERATION_PATHS` in place of the defaults they replace, so a
 * request to an overridden path is counted (and its list recognised) under its operation. Build
 * it from the same `paths` the clients are given.
 *
 * The base path before the operation's own path (`/api/v1`, or any other) is not known here, so
 * each tail of the path is tried, longest first.
 *
 * @example
 * ```ts
 * const operationOf = operationMatcher({ getSurveyGroups: "/groups/{surveyId}" });
 * operationOf("GET", "https://sds.example/api/v1/groups/42"); // "getSurveyGroups"
 * operationOf("GET", "https://sds.example/api/v1/survey-groups/42"); // "unknown"
 * ```
 */
export function operationMatcher(paths: OperationPaths = {}): OperationMatcher {
  const router = createRouter(
    operationIds.map((id) => ({
      id,
      method: operations[id].method,
      // Trailing slashes of the request's path are dropped below, so those of an override too.
      path: (paths[id] ?? operations[id].path).replace(/(.)\/+$/, "$1"),
    })),
  );
  return (method, url) => {
    const segments = pathOf(url).replace(/\/+$/, "").split("/");
    const upper = method.toUpperCase();
    for (let start = 1; start < segments.length; start++) {
      const match = router.match(upper, `/${segments.slice(start).join("/")}`);
      if (match.kind === "matched") return match.id;
    }
    return "unknown";
  };
}

/**
 * The path of an absolute URL, as `new URL(url).pathname` reads it. Every upstream request goes
 * through here twice (the request count, the list size limit), so the plain `http(s)://host/path`
 * of a `Request` (already normalised) is cut out of the string; anything else (no path, dot
 * segments, backslashes) goes through the URL parser.
 */
function pathOf(url: string): string {
  const scheme = url.startsWith("https://") ? 8 : url.startsWith("http://") ? 7 : -1;
  const start = scheme === -1 ? -1 : url.indexOf("/", scheme);
  let end = url.length;
  const query = url.indexOf("?");
  if (query !== -1) end = query;
  const fragment = url.indexOf("#");
  if (fragment !== -1 && fragment < end) end = fragment;
  if (start === -1 || start > end || url.includes("\\") || url.includes("/.")) return new URL(url).pathname;
  return url.slice(start, end);
}

/**
 * Wraps `fetch` so every HTTP attempt (retries included) is observed with its operation (as
 * `operationOf` names it) and status, whatever the client does above it. This is where the
 * upstream request metrics and each cycle's request count come from: one mechanism, independent
 * of client hooks.
 */
export function countingFetch(
  inner: FetchFunction,
  observe: RequestObserver,
  operationOf: OperationMatcher,
): FetchFunction {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const operation = operationOf(method, url);
    const started = performance.now();
    try {
      const response = await inner(input, init);
      observe({ operation, status: response.status, durationMs: performance.now() - started });
      return response;
    } catch (error) {
      observe({ operation, status: 0, durationMs: performance.now() - started });
      throw error;
    }
  };
}
