import { API_BASE_PATH } from "../fake/constants.ts";
import type { FakeServer, FakeSupplierApi, FetchFunction, ListenOptions } from "../fake/types.ts";
import { reshapeDetailResponse } from "../internal/hostile-detail-bodies.ts";
import {
  HTML_PAGE,
  duplicateIds,
  emptyList,
  errorAtEnd,
  outOfRangeIds,
  oversizeField,
  wrongTypes,
} from "../internal/hostile-bodies.ts";
import { markStreamed, startNodeServer } from "../internal/node-server.ts";
import { createServerSet } from "../internal/server-set.ts";
import { sleep } from "../internal/sleep.ts";
import type { HostileScenario } from "./scenarios.ts";

/** The fake behind a hostile front: one {@link HostileScenario} at a time, in-process or over HTTP. */
export interface HostileUpstream {
  /** In-process `fetch` with the scenario applied: pass it wherever a client takes a `fetch` option. */
  readonly fetch: FetchFunction;
  /** The scenario being played, or undefined while the fake's honest answers pass through. */
  readonly scenario: HostileScenario | undefined;
  /** Serves over HTTP (port 0 picks a free one), with the scenario applied. */
  listen(options?: ListenOptions): Promise<FakeServer>;
  /** Plays `scenario` from the next request on, replacing the previous one. */
  use(scenario: HostileScenario): void;
  /** Back to honest answers (and removes the faults a scenario added to the fake). */
  clear(): void;
  /** Closes the servers this front started (not the fake's own). */
  close(): Promise<void>;
}

const LIST_PATH = `${API_BASE_PATH}/surveys`;
/** Largest body a front's HTTP server reads from a request: the fake's own limit applies behind it. */
const MAX_REQUEST_BODY = 1 << 20;

/**
 * Puts a hostile front before a fake: the answers a poller must survive (an empty list, a body
 * that trickles or hangs, absurd or duplicate or out-of-range ids, wrong types, truncated, HTML
 * or `hasError`-at-the-end bodies, a key revoked mid-run, a 429 storm). Requests still reach the
 * fake (its request log and state stay true); the front reshapes what comes back. Scenarios
 * that the fake's fault injection already models (`truncated-body`, `rate-limit-storm`,
 * `unauthorized-mid-run`) are played through `api.faults`.
 *
 * @example
 * ```ts
 * const api = createFakeSupplierApi();
 * const hostile = createHostileUpstream(api);
 * const server = await hostile.listen(); // point the client at server.baseUrl
 * hostile.use({ kind: "drip", bytesPerChunk: 1, intervalMs: 1000 });
 * // … the client's next Get Surveys arrives one byte a second …
 * hostile.clear();
 * await hostile.close();
 * ```
 */
export function createHostileUpstream(api: FakeSupplierApi): HostileUpstream {
  let scenario: HostileScenario | undefined;
  let faultIds: string[] = [];
  let requestsSeen = 0;
  const servers = createServerSet();

  const removeFaults = () => {
    for (const id of faultIds) api.faults.remove(id);
    faultIds = [];
  };

  const hostileFetch: FetchFunction = async (input, init) => {
    const request = new Request(input, init);
    const current = scenario;
    requestsSeen += 1;
    if (current?.kind === "unauthorized-mid-run" && requestsSeen > (current.after ?? 1) && faultIds.length === 0) {
      faultIds.push(api.faults.add({ kind: "status", status: 401, errorCode: "INVALID_API_KEY" }).id);
    }
    const isList = request.method === "GET" && new URL(request.url).pathname === LIST_PATH;
    if (isList && current?.kind === "hang" && current.afterBytes === undefined) return hangForever(request.signal);
    const response = await api.fetch(request);
    const detail = await reshapeDetailResponse(request, response, current);
    if (detail) return detail;
    if (!isList || current === undefined || response.status !== 200) return response;
    return reshapeList(response, current, request.signal);
  };

  return {
    fetch: hostileFetch,
    get scenario() {
      return scenario;
    },
    async listen(options = {}) {
      return servers.track(
        await startNodeServer(
          async (request) => ({ kind: "response", response: await hostileFetch(request) }),
          MAX_REQUEST_BODY,
          options,
        ),
      );
    },
    use(next) {
      removeFaults();
      scenario = next;
      requestsSeen = 0;
      if (next.kind === "truncated-body")
        faultIds.push(api.faults.add({ kind: "truncated-json", operation: "listSurveys", keep: next.keep ?? 0.6 }).id);
      if (next.kind === "rate-limit-storm")
        faultIds.push(api.faults.add({ kind: "status", status: 429, retryAfter: next.retryAfterSeconds ?? 86_400 }).id);
    },
    clear() {
      removeFaults();
      scenario = undefined;
    },
    close: () => servers.closeAll(),
  };
}

async function reshapeList(response: Response, scenario: HostileScenario, signal: AbortSignal): Promise<Response> {
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const rewritten = (body: string) => new Response(body, { status: 200, headers });
  switch (scenario.kind) {
    case "empty-list":
      return rewritten(emptyList(text));
    case "oversize-field":
      return rewritten(oversizeField(text, scenario));
    case "duplicate-ids":
      return rewritten(duplicateIds(text, scenario));
    case "out-of-range-ids":
      return rewritten(outOfRangeIds(text));
    case "wrong-types":
      return rewritten(wrongTypes(text, scenario));
    case "error-at-end":
      return rewritten(errorAtEnd(text));
    case "html-body":
      headers.set("content-type", "text/html; charset=utf-8");
      return rewritten(HTML_PAGE);
    case "drip":
      return markStreamed(
        new Response(
          dripBody(new TextEncoder().encode(text), scenario.bytesPerChunk ?? 1, scenario.intervalMs, signal),
          { status: 200, headers },
        ),
      );
    case "hang":
      return markStreamed(
        new Response(
          dripBody(
            new TextEncoder().encode(text).subarray(0, scenario.afterBytes ?? 0),
            Number.MAX_SAFE_INTEGER,
            0,
            signal,
            true,
          ),
          { status: 200, headers },
        ),
      );
    default:
      return rewritten(text);
  }
}

/** A body that sends `chunkBytes` every `intervalMs` (the first at once), then ends, or hangs when `hang`. */
function dripBody(
  bytes: Uint8Array,
  chunkBytes: number,
  intervalMs: number,
  signal: AbortSignal,
  hang = false,
): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (sent > 0) await sleep(intervalMs, signal);
        if (sent < bytes.length) {
          const chunk = bytes.slice(sent, sent + chunkBytes);
          sent += chunk.length;
          controller.enqueue(chunk);
          return;
        }
        if (hang) await hangForever(signal);
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/** Never settles until `signal` aborts; then rejects with its reason, as fetch does. */
function hangForever(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener(
      "abort",
      () => {
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
