import {
  createFakeSupplierApi,
  createHostileUpstream,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeServer,
  type FakeSupplierApi,
  type FakeSupplierInit,
  type HostileUpstream,
} from "@sds/testing";
import { pino } from "pino";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { createClientUpstream } from "../src/upstream/client-upstream.ts";
import { countingFetch, operationMatcher, type FetchFunction } from "../src/upstream/counting-fetch.ts";
import { ClosureGuard, type ClosureGuardSettings } from "../src/cycle/closure-guard.ts";
import type { CycleResult } from "../src/cycle/cycle-result.ts";
import { runCycle, type CycleSettings } from "../src/cycle/run-cycle.ts";
import { SurveyIndex } from "../src/survey-index/survey-index.ts";

/** A logger that writes nothing, for tests that do not assert on logs. */
export const silentLogger = pino({ level: "silent" });

/** Options of {@link defaultSupplierFake}. */
export interface DefaultSupplierFakeOptions {
  /** Live surveys of the one supplier, or explicit inits. @default 20 */
  readonly surveys?: FakeSupplierInit["surveys"];
  /** @default 1 */
  readonly seed?: number;
  /** The fake's clock (epoch ms), so two fakes can hold identical data. @default Date.now */
  readonly now?: () => number;
}

/**
 * The fake with the one default supplier (default API key) the harnesses sync, logging every
 * request so a test can count them.
 */
export function defaultSupplierFake(options: DefaultSupplierFakeOptions = {}): FakeSupplierApi {
  return createFakeSupplierApi({
    seed: options.seed ?? 1,
    suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: options.surveys ?? 20 }],
    requestLogLimit: 1_000_000,
    ...(options.now ? { now: options.now } : {}),
  });
}

/** Puts `api` behind the hostile front (honest until a test plays a scenario) on a free port. */
export async function listenBehindHostileFront(
  api: FakeSupplierApi,
): Promise<{ hostile: HostileUpstream; server: FakeServer }> {
  const hostile = createHostileUpstream(api);
  return { hostile, server: await hostile.listen() };
}

/** The fake over real HTTP, a store, and a cycle to run on demand. */
export interface CycleHarness {
  readonly api: FakeSupplierApi;
  /** The hostile front the client talks to: honest until a test plays a scenario. */
  readonly hostile: HostileUpstream;
  readonly server: FakeServer;
  /** The mass-closure guard, when the harness was given its settings. */
  readonly guard: ClosureGuard | undefined;
  readonly store: SyncStore;
  /** Runs one cycle against the fake and returns its result; `settings` add to the harness's for this cycle. */
  cycle(settings?: CycleSettings): Promise<CycleResult>;
  /** Requests the fake logged since the last call (or since the start). */
  takeRequests(): ReturnType<FakeSupplierApi["requestLog"]>;
  close(): Promise<void>;
}

/** Options of {@link createCycleHarness}. */
export interface CycleHarnessOptions extends DefaultSupplierFakeOptions {
  readonly concurrency?: number;
  /** @default an in-memory SQLite store */
  readonly store?: SyncStore;
  /** Wraps the real `fetch` the client uses (to reshape or observe responses). */
  readonly wrapFetch?: (fetch: FetchFunction) => FetchFunction;
  /** Settings of the cycle beyond the harness's own (deadline, limits, closure guard). */
  readonly cycle?: CycleSettings;
  /** The mass-closure guard's settings. @default none: every absent survey closes */
  readonly closureGuard?: ClosureGuardSettings;
  /** `SYNC_MAX_LIST_BYTES` of the client upstream. @default the service's */
  readonly maxListBytes?: number;
  /** Client retries per request. @default 0 */
  readonly retry?: number;
  /** Client attempt timeout in ms. @default the client's */
  readonly timeout?: number;
}

/**
 * Starts the fake on a free port and wires a cycle to it through the real client, as the
 * service does. Retries are off, so a fault on a request is a failure of that request.
 */
export async function createCycleHarness(options: CycleHarnessOptions = {}): Promise<CycleHarness> {
  const api = defaultSupplierFake(options);
  const { hostile, server } = await listenBehindHostileFront(api);
  const store = options.store ?? (await openSqliteStore({ path: ":memory:" }));
  await store.leadership.acquire();
  let requests = 0;
  const upstream = createClientUpstream({
    baseUrl: server.baseUrl,
    apiKey: DEFAULT_API_KEY,
    fetch: countingFetch(
      options.wrapFetch ? options.wrapFetch(globalThis.fetch) : globalThis.fetch,
      () => {
        requests += 1;
      },
      operationMatcher(),
    ),
    maxConcurrency: (options.concurrency ?? 4) + 1,
    retry: options.retry ?? 0,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    ...(options.maxListBytes === undefined ? {} : { maxListBytes: options.maxListBytes }),
  });
  const index = new SurveyIndex();
  const guard = options.closureGuard ? new ClosureGuard(options.closureGuard) : undefined;
  let logged = 0;
  return {
    api,
    hostile,
    server,
    guard,
    store,
    cycle: (settings) =>
      runCycle(
        {
          store,
          upstream,
          concurrency: options.concurrency ?? 4,
          replicaId: "test",
          logger: silentLogger,
          requestCount: () => requests,
          ...options.cycle,
          ...settings,
          ...(guard ? { closureGuard: guard } : {}),
        },
        index,
        "manual",
        new AbortController().signal,
      ),
    takeRequests() {
      const log = api.requestLog();
      const fresh = log.slice(logged);
      logged = log.length;
      return fresh;
    },
    async close() {
      await store.close();
      await hostile.close();
      await api.close();
    },
  };
}

/** Polls `condition` every 20 ms until it holds; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
