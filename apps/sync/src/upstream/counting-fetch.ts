import { createRouter, operations, type OperationId } from "@sds/schemas";

/** A function with the signature of the global `fetch`. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Receives one line per HTTP request the wrapped fetch made. */
export type RequestObserver = (request: {
  readonly operation: OperationId | "unknown";
  readonly status: number;
  readonly durationMs: number;
}) => void;

/** The shared router (`@sds/schemas`) over the operations table: the one matcher of upstream paths. */
const operationRouter = createRouter(
  Object.entries(operations).map(([id, operation]) => ({
    id: id as OperationId,
    method: operation.method,
    path: operation.path,
  })),
);

/**
 * The operation a request URL and method belong to. The base path before the operation's own
 * path (`/api/v1`, or any other) is not known here, so each tail of the path is tried, longest
 * first, against the operations table.
 */
export function operationOf(method: string, url: string): OperationId | "unknown" {
  const segments = pathOf(url).replace(/\/+$/, "").split("/");
  const upper = method.toUpperCase();
  for (let start = 1; start < segments.length; start++) {
    const match = operationRouter.match(upper, `/${segments.slice(start).join("/")}`);
    if (match.kind === "matched") return match.id;
  }
  return "unknown";
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
 * Wraps `fetch` so every HTTP attempt (retries included) is observed with its operation and
 * status, whatever the client does above it. This is where the upstream request metrics and
 * each cycle's request count come from: one mechanism, independent of client hooks.
 */
export function countingFetch(inner: FetchFunction, observe: RequestObserver): FetchFunction {
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
