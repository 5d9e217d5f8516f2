import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_API_KEY,
  type FakeServer,
  type FakeSupplierApi,
  type FakeSupplierInit,
  type HostileUpstream,
} from "@sds/testing";
import type { Logger } from "pino";
import type { DatabaseConfig, SyncConfig } from "../src/config/config.ts";
import { startSyncService, type SyncService } from "../src/service.ts";
import type { FetchFunction } from "../src/upstream/counting-fetch.ts";
import type { Clock } from "../src/loop/runtime/clock.ts";
import type { RelayBackoff } from "../src/events/relay.ts";
import { defaultSupplierFake, listenBehindHostileFront, silentLogger, waitFor } from "./harness.ts";

/** sds-sync running in-process against the fake over HTTP. */
export interface ServiceHarness {
  readonly api: FakeSupplierApi;
  /** The hostile front sds-sync talks to (honest until a test plays a scenario). */
  readonly hostile: HostileUpstream;
  readonly fake: FakeServer;
  readonly service: SyncService;
  /** Calls the service's HTTP API. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link startServiceHarness}. */
export interface ServiceHarnessOptions {
  readonly surveys?: FakeSupplierInit["surveys"];
  readonly config?: Partial<SyncConfig>;
  /** @default a SQLite file in a fresh temporary directory */
  readonly database?: DatabaseConfig;
  /** An already running fake to share between replicas. */
  readonly api?: FakeSupplierApi;
  readonly replicaId?: string;
  readonly followerPollMs?: number;
  /** Time between the pruner's passes; a test that prunes with `pruner.pruneOnce()` sets it long. */
  readonly pruneEveryMs?: number;
  /** Where the service logs. @default silent */
  readonly logger?: Logger;
  /** The clock the loop's background tasks run on (a test's ManualClock). @default the wall clock */
  readonly clock?: Clock;
  /** The `fetch` sds-sync reaches the fake with (such as one that rewrites its answers). @default globalThis.fetch */
  readonly fetch?: FetchFunction;
  /** The sessions' clock. @default the system clock */
  readonly sessionClock?: () => Date;
  /** The clock the pruner measures ages by (a test moves it past the horizon instead of waiting). @default Date.now */
  readonly pruneClock?: () => number;
  /**
   * The pauses of events out between retries. @default {@link TEST_EVENTS_BACKOFF}: an outage's
   * end is seen within a second instead of after a doubling backoff of up to minutes
   */
  readonly eventsBackoff?: RelayBackoff;
}

/** Events out retry after 100 ms, doubling, at most 1 s apart in tests: the order and count of deliveries, not the pauses, are what they prove. */
export const TEST_EVENTS_BACKOFF: RelayBackoff = { firstMs: 100, maxMs: 1000 };

/**
 * Starts the fake (unless given) and sds-sync against it on a free port, with a one-hour
 * interval so only the start-up cycle runs unless a test asks for more. Waits for that cycle
 * when this replica leads.
 */
/** The SYNC_SESSION_SECRET of every harness that does not set its own: start links are signed with it. */
export const TEST_SESSION_SECRET = "harness-session-secret-0123456789abcdef";

export async function startServiceHarness(options: ServiceHarnessOptions = {}): Promise<ServiceHarness> {
  const ownsApi = options.api === undefined;
  const api = options.api ?? defaultSupplierFake(options.surveys === undefined ? {} : { surveys: options.surveys });
  const { hostile, server: fake } = await listenBehindHostileFront(api);
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-service-"));
  const config: SyncConfig = {
    baseUrl: fake.baseUrl,
    apiKey: DEFAULT_API_KEY,
    database: options.database ?? { kind: "sqlite", path: join(directory, "sds.db") },
    intervalSeconds: 3600,
    concurrency: 4,
    port: 0,
    host: "127.0.0.1",
    apiToken: undefined,
    logLevel: "silent",
    retentionSeconds: 7 * 24 * 3600,
    cycleTimeoutSeconds: 600,
    maxRecordBytes: 1_048_576,
    maxListBytes: 536_870_912,
    maxClosureShare: 0.25,
    closureConfirmCycles: 3,
    manualRunSpacingSeconds: 0,
    sessionSecret: TEST_SESSION_SECRET,
    ...options.config,
  };
  const service = await startSyncService({
    config,
    logger: options.logger ?? silentLogger,
    retry: 0,
    ...(options.replicaId === undefined ? {} : { replicaId: options.replicaId }),
    ...(options.followerPollMs === undefined ? {} : { followerPollMs: options.followerPollMs }),
    ...(options.pruneEveryMs === undefined ? {} : { pruneEveryMs: options.pruneEveryMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.sessionClock === undefined ? {} : { sessionClock: options.sessionClock }),
    ...(options.pruneClock === undefined ? {} : { pruneClock: options.pruneClock }),
    eventsBackoff: options.eventsBackoff ?? TEST_EVENTS_BACKOFF,
  });
  // Leaders run their start-up cycle at once; a follower never does, so only wait for a leader.
  const started = Date.now();
  await waitFor(
    () =>
      service.engine.status().lastCycle !== undefined ||
      (!service.engine.status().leader && Date.now() - started > 500),
    30_000,
  );
  // After a successful start-up cycle the leader fetches the routing data; surveys whose groups or
  // study type are not known yet stay out of routing until then, so tests start once it is in.
  const cycle = service.engine.status().lastCycle;
  if (service.engine.status().leader && cycle !== undefined && cycle.failure === null) {
    const committed = await service.store.latestSequence();
    await waitFor(() => {
      const { facts, liveMatcher } = service.loop;
      // The matcher must hold the cycle's surveys first: an empty matcher holds nothing out.
      return (
        liveMatcher.sequence >= committed &&
        facts.studyTypesKnown &&
        facts.pending.groups === 0 &&
        facts.pending.studyTypes === 0
      );
    }, 15_000);
  }
  return {
    api,
    hostile,
    fake,
    service,
    request: (path, init) => fetch(`${service.url}${path}`, init),
    async close() {
      await service.stop();
      await fake.close();
      if (ownsApi) await api.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
