import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { describeConfig, type SyncConfig } from "./config/config.ts";
import { changeFeedRoutes } from "./change-feed/change-feed-routes.ts";
import { openApiRoutes } from "./http/openapi-builder.ts";
import type { RouteModule } from "./http/route-module.ts";
import { startApiServer, type ApiServer } from "./http/server.ts";
import { inventoryRoutes } from "./inventory-api/inventory-routes.ts";
import { PageCache } from "./inventory-api/page-cache.ts";
import { loopRoutes } from "./loop/loop-routes.ts";
import { loopStatus } from "./loop/loop-status.ts";
import { operatorRoutes } from "./operator/operator-routes.ts";
import { probeRoutes } from "./probes/probe-routes.ts";
import { statusPageRoutes } from "./status-page/status-page.ts";
import type { LoopContext } from "./loop/loop-context.ts";
import { startLoop, type Loop } from "./loop/start-loop.ts";
import { sessionInventory, startSessions, type SessionRoom } from "./session/start-sessions.ts";
import { createSyncMetrics, type SyncMetrics } from "./metrics/sync-metrics.ts";
import { Pruner } from "./retention/pruner.ts";
import { openStore } from "./store/open-store.ts";
import type { SyncStore } from "./store/store.ts";
import { feedNotifier } from "./feed/change-notifier.ts";
import { createClientUpstream } from "./upstream/client-upstream.ts";
import { countingFetch, operationMatcher, type FetchFunction } from "./upstream/counting-fetch.ts";
import { SyncEngine } from "./engine/sync-engine.ts";
import type { Upstream } from "./upstream/upstream.ts";

/** Options of {@link startSyncService} beyond the configuration: seams for tests, the demo and benchmarks. */
export interface SyncServiceOptions {
  readonly config: SyncConfig;
  readonly logger: Logger;
  /** The `fetch` the client uses, such as a fake's in-process handler. @default globalThis.fetch */
  readonly fetch?: FetchFunction;
  /** An upstream to use instead of `@sds/client` (requests are then not counted). */
  readonly upstream?: Upstream;
  /** Identifies this replica in run records and logs. @default "<hostname>:<pid>:<random>" */
  readonly replicaId?: string;
  /** How often a follower tries to take leadership, in ms. @default min(interval, 5 s) */
  readonly followerPollMs?: number;
  /** Client retries per upstream request. @default the client's (2) */
  readonly retry?: number;
  /** Time between two pruning passes, in ms. @default a tenth of the retention, between 1 s and 60 s */
  readonly pruneEveryMs?: number;
  /** Awaited inside start once the store is open and migrated, before the loop loads: a seam for the tests of signals during start. */
  readonly afterStoreOpen?: () => Promise<void>;
  /**
   * Aborted when a stop is asked for while start is under way: start then skips what it can (the
   * rest of the matcher's load, the first account read, the first cycle and pruning pass) and
   * returns at once, for the caller to stop the service.
   */
  readonly startSignal?: AbortSignal;
  /** The clock of the respondent sessions (their expiry, drops, profiles' age): tests move time on. @default the system clock */
  readonly sessionClock?: () => Date;
}

/** A running sds-sync: the engine, the store and the HTTP API. */
export interface SyncService {
  /** Base URL of the HTTP API, such as `http://127.0.0.1:8787`. */
  readonly url: string;
  /** Base URL of the S2S outcome receiver's own listener (`SYNC_OUTCOMES_PORT`), else the API's. */
  readonly outcomesUrl: string;
  readonly store: SyncStore;
  /** The respondent loop: matcher, account settings, outcome store. */
  readonly loop: LoopContext;
  /** The respondent's sessions. */
  readonly sessions: SessionRoom;
  readonly engine: SyncEngine;
  readonly metrics: SyncMetrics;
  /** Prunes what is older than `SYNC_RETENTION_SECONDS` (and `SYNC_OUTCOME_RETENTION_SECONDS`), on the leader. */
  readonly pruner: Pruner;
  /** Upstream HTTP requests made so far, retries included. */
  readonly upstreamRequests: () => number;
  /** Stops taking work, aborts a running cycle, closes the server and the store. Safe to call twice. */
  stop(): Promise<void>;
}

/** What the route modules of one replica are built from. */
interface RouteDependencies {
  readonly store: SyncStore;
  readonly engine: SyncEngine;
  readonly metrics: SyncMetrics;
  readonly notifier: ReturnType<typeof feedNotifier>;
  readonly intervalMs: number;
  readonly isStopping: () => boolean;
  readonly loop: LoopContext;
  readonly sessions: SessionRoom;
}

/**
 * Every route of the service, one module per feature: the probes, the inventory read API, the
 * change feed, the operator's routes, the respondent loop, the status page and the contract
 * (`/openapi.json`, built from all of them).
 */
function composeRoutes(dependencies: RouteDependencies): RouteModule[] {
  const { store, engine, metrics, notifier, intervalMs, isStopping, loop, sessions } = dependencies;
  const modules = [
    statusPageRoutes(),
    probeRoutes({ store, metrics, intervalMs, isStopping, warnings: () => loop.warnings() }),
    inventoryRoutes({ store, pageCache: new PageCache() }),
    changeFeedRoutes({ store, notifier }),
    operatorRoutes({
      store,
      engine,
      intervalMs,
      // The question catalogue is reported with the routing data: `loop.inventoryData.questions`.
      loopStatus: async () => {
        const status = await loopStatus(loop);
        const inventoryData = status.inventoryData as Record<string, unknown>;
        return { ...status, inventoryData: { ...inventoryData, questions: sessions.catalogue.report() } };
      },
    }),
    loopRoutes(loop, sessions.profiles),
    sessions.routes,
  ];
  return [...modules, openApiRoutes(modules)];
}

/**
 * Opens the store (migrating it), starts the sync engine and the HTTP API. The first cycle
 * starts at once when this replica leads.
 *
 * @example
 * ```ts
 * const service = await startSyncService({ config: loadConfig(process.env), logger: createLogger("info") });
 * await service.engine.nextCycle();
 * ```
 */
export async function startSyncService(options: SyncServiceOptions): Promise<SyncService> {
  const { config, logger } = options;
  logger.info({ config: describeConfig(config) }, "starting sds-sync");
  const store = await openStore(config.database);
  const metrics = createSyncMetrics(store);
  let requests = 0;
  // Every client below gets `config.operationPaths`; requests to those paths count under their operation.
  const fetch = countingFetch(
    options.fetch ?? globalThis.fetch,
    ({ operation, status }) => {
      requests += 1;
      metrics.upstreamRequests.inc({ operation, status: String(status) });
    },
    operationMatcher(config.operationPaths),
  );
  const upstream =
    options.upstream ??
    createClientUpstream({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      paths: config.operationPaths,
      fetch,
      // The engine bounds per-survey fetches itself; the client's own limit must not be the tighter one.
      maxConcurrency: config.concurrency + 1,
      maxListBytes: config.maxListBytes,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
  const notifier = feedNotifier("changes", () => store.latestSequence(), config, metrics);
  const intervalMs = config.intervalSeconds * 1000;
  const engine = new SyncEngine({
    store,
    upstream,
    intervalMs,
    concurrency: config.concurrency,
    replicaId: options.replicaId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`,
    logger,
    metrics,
    notifier,
    requestCount: () => requests,
    cycle: { deadlineMs: config.cycleTimeoutSeconds * 1000, maxRecordBytes: config.maxRecordBytes },
    closureGuard: { maxShare: config.maxClosureShare, confirmCycles: config.closureConfirmCycles },
    manualRunSpacingMs: config.manualRunSpacingSeconds * 1000,
    ...(options.followerPollMs === undefined ? {} : { followerPollMs: options.followerPollMs }),
  });

  let stopping = false;
  let loop: Loop;
  let sessions: SessionRoom;
  try {
    await options.afterStoreOpen?.();
    const sessionSurveys = sessionInventory(config);
    loop = await startLoop({
      config,
      logger,
      inventory: store,
      cycles: engine,
      metrics,
      fetch,
      inventoryFollower: sessionSurveys.follower,
      ...(options.startSignal === undefined ? {} : { startSignal: options.startSignal }),
    });
    sessions = startSessions({
      config,
      loop: loop.context,
      inventory: sessionSurveys.inventory,
      cycles: engine,
      logger,
      registry: metrics.registry,
      fetch,
      ...(options.sessionClock === undefined ? {} : { clock: options.sessionClock }),
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  let server: ApiServer;
  let outcomesServer: ApiServer | undefined;
  try {
    const modules = composeRoutes({
      store,
      engine,
      metrics,
      notifier,
      intervalMs,
      isStopping: () => stopping,
      loop: loop.context,
      sessions,
    });
    const separate = config.outcomesPort !== undefined;
    server = await startApiServer({
      modules,
      host: config.host,
      port: config.port,
      apiToken: config.apiToken,
      logger,
      serve: separate ? "api" : "both",
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.allowedOrigins,
    });
    if (config.outcomesPort !== undefined) {
      outcomesServer = await startApiServer({
        modules,
        host: config.outcomesHost ?? config.host,
        port: config.outcomesPort,
        apiToken: config.apiToken,
        logger,
        serve: "outcomes",
      }).catch(async (error: unknown) => {
        await server.close();
        throw error;
      });
    }
  } catch (error) {
    await sessions.stop();
    await loop.stop();
    await store.close();
    throw error;
  }
  const pruner = new Pruner({
    store,
    retentionMs: config.retentionSeconds * 1000,
    // 0 (the default) keeps entry links and outcomes forever: business records.
    outcomes: config.outcomeRetentionSeconds
      ? { store: loop.context.outcomes, retentionMs: config.outcomeRetentionSeconds * 1000 }
      : undefined,
    logger,
    ...(options.pruneEveryMs === undefined ? {} : { everyMs: options.pruneEveryMs }),
  });
  // A stop asked for during start: the service is about to stop, so no cycle (it would only be
  // aborted) and no pruning pass begins; the caller stops the service next.
  if (options.startSignal?.aborted)
    logger.info("start: a stop was asked for; no sync cycle or pruning pass is started");
  else {
    engine.start();
    pruner.start();
  }
  logger.info({ url: server.url, outcomesUrl: outcomesServer?.url, store: store.kind }, "sds-sync listening");

  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    outcomesUrl: outcomesServer?.url ?? server.url,
    store,
    loop: loop.context,
    sessions,
    engine,
    metrics,
    pruner,
    upstreamRequests: () => requests,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        logger.info("stopping: no new cycles, closing the API and the store");
        // Long-polls end first, so closing the server waits for no one.
        notifier.close();
        loop.context.outcomeNotifier.close();
        await Promise.all([engine.stop(), pruner.stop(), server.close(), outcomesServer?.close()]);
        await sessions.stop();
        await Promise.all([loop.stop(), store.close()]);
        logger.info("stopped");
      })();
      return stopped;
    },
  };
}
