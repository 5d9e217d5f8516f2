import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { describeConfig, describeDatabase, type SyncConfig } from "./config/config.ts";
import { DEFAULT_CONNECTION_LIMITS, DEFAULT_OUTCOMES_HEADERS_TIMEOUT_SECONDS } from "./http/connection-settings.ts";
import { changeFeedRoutes } from "./change-feed/change-feed-routes.ts";
import { checkWebhookAddresses, createEvents, type Events } from "./events/events.ts";
import type { RelayBackoff } from "./events/relay.ts";
import { storedLanguages } from "./inventory-store/stored-languages.ts";
import { respondentPageRoutes, type RespondentPage } from "./page/page-routes.ts";
import { sessionInventory, startSessions, type SessionRoom } from "./session/start-sessions.ts";
import { openApiRoutes } from "./http/openapi-builder.ts";
import type { RouteModule } from "./http/route-module.ts";
import { DEFAULT_MAX_CPI } from "./loop/money.ts";
import { accessWarnings, type AccessTokens } from "./http/route-access.ts";
import { startApiServer } from "./http/server.ts";
import { inventoryRoutes } from "./inventory-api/inventory-routes.ts";
import { PageCache } from "./inventory-api/page-cache.ts";
import { loopRoutes } from "./loop/loop-routes.ts";
import { loopStatus } from "./loop/loop-status.ts";
import { operatorRoutes, syncStatusReport } from "./operator/operator-routes.ts";
import { probeRoutes, readinessReport } from "./probes/probe-routes.ts";
import { statusPageRoutes } from "./status-page/status-page.ts";
import type { LoopContext } from "./loop/loop-context.ts";
import { startLoop } from "./loop/start-loop.ts";
import { createSyncMetrics, type SyncMetrics } from "./metrics/sync-metrics.ts";
import { Pruner } from "./retention/pruner.ts";
import { DEFAULT_IDEMPOTENCY_RETENTION_SECONDS, idempotencyKeyRetention } from "./loop/store/idempotency-records.ts";
import { openStore } from "./inventory-store/open-store.ts";
import type { Clock } from "./loop/runtime/clock.ts";
import { CleanupStack } from "./common/cleanup-stack.ts";
import { retryWhileUnreachable } from "./database/start-retry.ts";
import type { SyncStore } from "./inventory-store/store.ts";
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
  /** The clock the pruner measures ages by, in ms since the epoch (tests move it past a horizon instead of waiting). @default Date.now */
  readonly pruneClock?: () => number;
  /** Awaited inside start once the store is open and migrated, before the loop loads: where a test asks for a stop during start. */
  readonly afterStoreOpen?: () => Promise<void>;
  /** The clock the loop's background tasks run on. @default the wall clock */
  readonly clock?: Clock;
  /** The clock sessions expire by. @default the system clock */
  readonly sessionClock?: () => Date;
  /**
   * The pauses of events out between retries of a failed delivery (tests shorten them to see an
   * outage end without waiting out a doubling backoff). @default first within 1 s, doubling, at most 5 minutes
   */
  readonly eventsBackoff?: RelayBackoff;
  /**
   * Aborted when a stop is asked for while start is under way: start then skips what it can (the
   * rest of the matcher's load, the first account read, the first cycle and pruning pass) and
   * returns at once, for the caller to stop the service.
   */
  readonly startSignal?: AbortSignal;
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
  readonly engine: SyncEngine;
  readonly metrics: SyncMetrics;
  /** Prunes what is older than `SYNC_RETENTION_SECONDS` (and `SYNC_OUTCOME_RETENTION_SECONDS`) and sessions a TTL past their expiry, on the leader. */
  readonly pruner: Pruner;
  /** Events out: the relays to NATS and webhooks (idle when none is configured). */
  readonly events: Events;
  /** The respondent's sessions: the question catalogue, profiles, the drop sweeper and their routes. */
  readonly sessions: SessionRoom;
  /** Upstream HTTP requests made so far, retries included. */
  readonly upstreamRequests: () => number;
  /** Stops taking work, aborts a running cycle, closes the server and the store. Safe to call twice. */
  stop(): Promise<void>;
}

/** What the route modules of one replica are built from. */
interface RouteDependencies {
  readonly config: SyncConfig;
  readonly store: SyncStore;
  readonly engine: SyncEngine;
  readonly metrics: SyncMetrics;
  readonly notifier: ReturnType<typeof feedNotifier>;
  readonly intervalMs: number;
  readonly isStopping: () => boolean;
  readonly loop: LoopContext;
  readonly events: Events;
  readonly sessions: SessionRoom;
  readonly page: RespondentPage;
}

/** The tokens of the configuration, as the routes' access levels ask for them (http/route-access.ts). */
function tokensOf(config: SyncConfig): AccessTokens {
  return { api: config.apiToken, router: config.routerToken, metrics: config.metricsToken };
}

/**
 * Every route of the service, one module per feature: the probes, the inventory read API, the
 * change feed, the operator's routes, the respondent loop, the status page and the contract
 * (`/openapi.json`, built from all of them).
 */
function composeRoutes(dependencies: RouteDependencies): RouteModule[] {
  const { config, store, engine, metrics, notifier, intervalMs, isStopping, loop, events, sessions, page } =
    dependencies;
  const probes = {
    store,
    metrics,
    intervalMs,
    isStopping,
    warnings: () => [...accessWarnings(tokensOf(config)), ...loop.warnings(), ...events.warnings(), ...page.warnings()],
  };
  const operator = {
    store,
    engine,
    intervalMs,
    // The question catalogue is reported with the routing data (`loop.inventoryData.questions`), the gate's refusals as `loop.gate`.
    loopStatus: async () => {
      const [status, refusals] = await Promise.all([loopStatus(loop), sessions.gateRefusals()]);
      return {
        ...status,
        inventoryData: { ...status.inventoryData, questions: sessions.catalogue.report() },
        gate: { refusals },
      };
    },
    currency: config.currency ?? "USD",
    // The lock holder as it announced itself, else the replica that ran the last cycle.
    leader: async () =>
      (await store.leadership.holder?.()) ?? (await store.listRuns(1)).map((run) => ({ id: run.replicaId }))[0],
  };
  const modules = [
    statusPageRoutes({
      readiness: () => readinessReport(probes),
      // Rendered into the page only when the API is open anyway.
      status: config.apiToken === undefined ? () => syncStatusReport(operator) : undefined,
    }),
    probeRoutes(probes),
    inventoryRoutes({ store, pageCache: new PageCache() }),
    changeFeedRoutes({ store, notifier }),
    operatorRoutes(operator),
    loopRoutes(loop, sessions.profiles),
    events.routes,
    sessions.routes,
    page.routes,
  ];
  return [...modules, openApiRoutes(modules)];
}

/**
 * Opens the store (migrating it), starts the sync engine and the HTTP API. The first cycle
 * starts at once when this replica leads. Everything it opens is registered on one clean-up
 * stack: a start that fails half-way closes what it opened, and `stop()` closes all of it, last
 * opened first.
 *
 * @example
 * ```ts
 * const service = await startSyncService({ config: loadConfig(process.env), logger: createLogger("info") });
 * await service.engine.nextCycle();
 * ```
 */
export async function startSyncService(options: SyncServiceOptions): Promise<SyncService> {
  const cleanup = new CleanupStack();
  try {
    return await assembleService(options, cleanup);
  } catch (error) {
    await cleanup.disposeAsync().catch((cleanupError: unknown) => {
      options.logger.warn({ err: cleanupError }, "sds-sync could not close what it had opened before its start failed");
    });
    throw error;
  }
}

async function assembleService(options: SyncServiceOptions, cleanup: CleanupStack): Promise<SyncService> {
  const { config, logger } = options;
  logger.info({ config: describeConfig(config) }, "starting sds-sync");
  await checkWebhookAddresses(config);
  // A database still starting (or a network not up yet) is waited for, with backoff, for
  // SYNC_DATABASE_START_TIMEOUT_SECONDS: a supervisor need not order the two.
  const store = cleanup.use(
    await retryWhileUnreachable(() => openStore(config.database), {
      timeoutMs: (config.databaseStartTimeoutSeconds ?? 60) * 1000,
      logger,
      database: describeDatabase(config.database),
      ...(options.startSignal === undefined ? {} : { signal: options.startSignal }),
    }),
    (opened) => opened.close(),
  );
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
  const replicaId = options.replicaId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const engine = new SyncEngine({
    store,
    upstream,
    intervalMs,
    concurrency: config.concurrency,
    replicaId,
    logger,
    metrics,
    notifier,
    requestCount: () => requests,
    cycle: {
      deadlineMs: config.cycleTimeoutSeconds * 1000,
      maxRecordBytes: config.maxRecordBytes,
      maxCpi: config.maxCpi ?? DEFAULT_MAX_CPI,
    },
    closureGuard: { maxShare: config.maxClosureShare, confirmCycles: config.closureConfirmCycles },
    manualRunSpacingMs: config.manualRunSpacingSeconds * 1000,
    ...(options.followerPollMs === undefined ? {} : { followerPollMs: options.followerPollMs }),
  });

  let stopping = false;
  await options.afterStoreOpen?.();
  const sessionSurveys = sessionInventory(config);
  const loop = cleanup.use(
    await startLoop({
      config,
      logger,
      inventory: store,
      cycles: engine,
      metrics,
      fetch,
      inventoryFollower: sessionSurveys.follower,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.startSignal === undefined ? {} : { startSignal: options.startSignal }),
    }),
    (started) => started.stop(),
  );
  // One reader of the stored Languages collection: the page's locales and the gate's countries.
  const languages = storedLanguages(async () => (await store.getCollection("languages"))?.body);
  const sessions = cleanup.use(
    startSessions({
      config,
      loop: loop.context,
      inventory: sessionSurveys.inventory,
      cycles: engine,
      logger,
      registry: metrics.registry,
      fetch,
      languages,
      ...(options.sessionClock === undefined ? {} : { clock: options.sessionClock }),
    }),
    (started) => started.stop(),
  );
  const events = createEvents({
    config,
    logger,
    inventory: store,
    outcomes: loop.context.store,
    registry: metrics.registry,
    notifiers: { outcomes: loop.context.outcomeNotifier, changes: notifier },
    ...(options.eventsBackoff === undefined ? {} : { backoff: options.eventsBackoff }),
  });
  cleanup.defer(() => events.stop());
  const page = respondentPageRoutes({
    config,
    sessions: sessions.sessions,
    loop: loop.context,
    inventory: sessionSurveys.inventory,
    languages,
    ...(options.sessionClock === undefined ? {} : { clock: options.sessionClock }),
  });
  const modules = composeRoutes({
    config,
    store,
    engine,
    metrics,
    notifier,
    intervalMs,
    isStopping: () => stopping,
    loop: loop.context,
    events,
    sessions,
    page,
  });
  const separate = config.outcomesPort !== undefined;
  const connections = {
    total: config.maxConnections ?? DEFAULT_CONNECTION_LIMITS.total,
    perAddress: config.maxConnectionsPerAddress ?? DEFAULT_CONNECTION_LIMITS.perAddress,
  };
  const server = cleanup.use(
    await startApiServer({
      modules,
      host: config.host,
      port: config.port,
      tokens: tokensOf(config),
      logger,
      serve: separate ? "api" : "both",
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.allowedOrigins,
      trustedProxies: config.trustedProxies,
      connections,
    }),
    (started) => started.close(),
  );
  const outcomesServer =
    config.outcomesPort === undefined
      ? undefined
      : cleanup.use(
          await startApiServer({
            modules,
            host: config.outcomesHost ?? config.host,
            port: config.outcomesPort,
            tokens: tokensOf(config),
            logger,
            serve: "outcomes",
            trustedProxies: config.trustedProxies,
            connections,
            headersTimeoutMs: (config.outcomesHeadersTimeoutSeconds ?? DEFAULT_OUTCOMES_HEADERS_TIMEOUT_SECONDS) * 1000,
            // The marketplace's calls carry no body to speak of and the receiver has no long-polls: a body trickled for longer is an attack.
            requestTimeoutMs: 30_000,
          }),
          (started) => started.close(),
        );
  const pruner = new Pruner({
    store,
    retentionMs: config.retentionSeconds * 1000,
    // 0 (the default) keeps entry links and outcomes forever: business records.
    outcomes: config.outcomeRetentionSeconds
      ? { store: loop.context.store, retentionMs: config.outcomeRetentionSeconds * 1000 }
      : undefined,
    sessions: sessions.retention,
    idempotencyKeys: idempotencyKeyRetention(
      loop.context.store,
      (config.idempotencyRetentionSeconds ?? DEFAULT_IDEMPOTENCY_RETENTION_SECONDS) * 1000,
    ),
    logger,
    // Never prunes what a sink of events out has not acknowledged.
    holds: () => events.retentionHolds(),
    ...(options.pruneEveryMs === undefined ? {} : { everyMs: options.pruneEveryMs }),
    ...(options.pruneClock === undefined ? {} : { now: options.pruneClock }),
  });
  cleanup.defer(() => Promise.all([engine.stop(), pruner.stop()]));
  // Long-polls end in the same turn as the listeners begin to close: their answers then say
  // `Connection: close`, and closing waits for no one.
  cleanup.defer(() => {
    const closing = [server.close(), ...(outcomesServer === undefined ? [] : [outcomesServer.close()])];
    notifier.close();
    loop.context.outcomeNotifier.close();
    return Promise.all(closing);
  });

  // Followers name the leader by what it announced, before it can lead: its id and its API's port.
  await store.leadership.announce?.(replicaId, server.url);
  // A stop asked for during start: the service is about to stop, so no cycle (it would only be
  // aborted) and no pruning pass begins; the caller stops the service next.
  if (options.startSignal?.aborted)
    logger.info("start: a stop was asked for; no sync cycle or pruning pass is started");
  else {
    engine.start();
    pruner.start();
    events.start();
  }
  logger.info({ url: server.url, outcomesUrl: outcomesServer?.url, store: store.kind }, "sds-sync listening");
  for (const warning of accessWarnings(tokensOf(config))) logger.warn(warning);

  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    outcomesUrl: outcomesServer?.url ?? server.url,
    store,
    loop: loop.context,
    engine,
    metrics,
    pruner,
    events,
    sessions,
    upstreamRequests: () => requests,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        logger.info("stopping: no new cycles, closing the API and the store");
        await cleanup.disposeAsync();
        logger.info("stopped");
      })();
      return stopped;
    },
  };
}
