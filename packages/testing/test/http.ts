// Helpers shared by the tests: one way to call the fake, over a socket or in-process.
import { API_KEY_HEADER, type FakeSupplierApi, type FetchFunction } from "../src/index.ts";

/** What a test wants to send. */
export interface CallOptions {
  readonly method?: string;
  /** The API key; `null` sends no key header. */
  readonly key?: string | null;
  /** A value to send as JSON, or a string sent as is. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a test reads back: status, headers, raw text and (when it parses) the JSON body. */
export interface CallResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

/** Calls one path of the service (relative to `/api/v1`), or a path starting with `//` relative to the origin. */
export interface Caller {
  (path: string, options?: CallOptions): Promise<CallResult>;
  /** Scheme, host and port the caller talks to. */
  readonly origin: string;
}

/** Builds a caller on a fetch function and base URL. */
export function callerFor(fetchFunction: FetchFunction, baseUrl: string, defaultKey: string): Caller {
  const origin = new URL(baseUrl).origin;
  const call = async (path: string, options: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key !== null) headers[API_KEY_HEADER] = key;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const url = path.startsWith("//") ? `${origin}${path.slice(1)}` : `${baseUrl}${path}`;
    const response = await fetchFunction(url, {
      method: options.method ?? "GET",
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Left empty: the tests of malformed bodies read `text`.
    }
    return { status: response.status, headers: response.headers, text, json };
  };
  return Object.assign(call, { origin });
}

/** A caller over real HTTP: starts a server on port 0; the test closes it with `api.close()`. */
export async function httpCaller(api: FakeSupplierApi, key = api.keys[0]?.apiKey ?? ""): Promise<Caller> {
  const server = await api.listen({ port: 0 });
  return callerFor(fetch, server.baseUrl, key);
}

/** A caller with no socket, through `api.fetch`. */
export function inProcessCaller(api: FakeSupplierApi, key = api.keys[0]?.apiKey ?? ""): Caller {
  return callerFor(api.fetch, "http://fake.test/api/v1", key);
}

/** A valid update body. */
export const validUrlSettings = {
  Enabled: true,
  CompleteUrl: "https://panel.example.com/complete?rid=[%RID%]",
  TerminateUrl: "https://panel.example.com/terminate?rid={rid}",
  OverQuotaUrl: "https://panel.example.com/overquota?rid=[%RID%]",
  SecurityTerminateUrl: "http://panel.example.com/security",
} as const;

/** A fixed clock for deterministic timestamps, advanced by hand. */
export function manualClock(start = Date.UTC(2026, 2, 1, 9, 0, 0, 0)): {
  now: () => number;
  advance(ms: number): void;
} {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
  };
}
