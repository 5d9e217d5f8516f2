import { createClient } from "@sds/client";
import { DEFAULT_YIELD_CUTOFF, entryLinkProblem } from "@sds/routing";
import type { Logger } from "pino";
import type { DatabaseConfig } from "../database/database-config.ts";
import type { LoopConfig } from "./loop-settings.ts";
import type { SyncMetrics } from "../metrics/sync-metrics.ts";
import type { CycleEvents, InventoryReader } from "./inventory-reader.ts";
import { createLoopMetrics } from "./loop-metrics.ts";
import { cpiProblem, DEFAULT_MAX_CPI } from "./money.ts";
import { routingDataReport } from "./loop-status.ts";
import { ReceiverRefusals } from "./receiver-refusals.ts";
import { entryPlaceholders, matcherOptions, routingPolicy } from "./routing-setup.ts";
import { RoutingDataRefresher } from "./routing-data-refresher.ts";
import { RoutingFacts } from "./routing-facts.ts";
import { loopWarnings } from "./loop-warnings.ts";
import { openLoopStore } from "./store/open-loop-store.ts";
import { DEFAULT_SPEEDER_FRACTION } from "./store/respondent-risk-records.ts";
import type { FetchFunction } from "../upstream/counting-fetch.ts";
import type { OperationPaths } from "../upstream/operation-paths.ts";
import { feedNotifier } from "../feed/change-notifier.ts";
import { AccountSettings } from "./account-settings.ts";
import { LiveMatcher, type InventoryFollower } from "./live-matcher.ts";
import type { LoopContext } from "./loop-context.ts";
import { addLoopTasks } from "./loop-tasks.ts";
import { systemClock, type Clock } from "./runtime/clock.ts";
import { LoopRuntime } from "./runtime/loop-runtime.ts";
import { CleanupStack } from "../common/cleanup-stack.ts";

/** How long the start waits for the first read of the account, in ms. */
const ACCOUNT_START_WAIT_MS = 5000;

/** The settings the loop starts with: its own rows, and those of the service it reads. */
export interface LoopStartConfig extends LoopConfig {
  readonly database: DatabaseConfig;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly operationPaths?: OperationPaths | undefined;
  readonly intervalSeconds: number;
  readonly maxLongPolls?: number | undefined;
  /** `SYNC_SPEEDER_FRACTION` (a row of the quality gate's, gate/gate-settings.ts): the recording programs flag speeders. @default 0.3 */
  readonly speederFraction?: number | undefined;
}

/** Options of {@link startLoop}. */
export interface LoopOptions {
  readonly config: LoopStartConfig;
  readonly logger: Logger;
  /** The inventory the matcher follows. */
  readonly inventory: InventoryReader;
  /** Cycle ends, after which the matcher and the account are refreshed (the engine). */
  readonly cycles: CycleEvents;
  /** The service's metrics: the loop registers its own in their registry, and its feed uses the long-poll gauges. */
  readonly metrics: Pick<SyncMetrics, "registry" | "longPollsWaiting" | "longPollsRefused">;
  /** The `fetch` the account is read with (the service's counting one). */
  readonly fetch: FetchFunction;
  /** The clock the loop's background tasks run on (loop-tasks.ts). @default the wall clock */
  readonly clock?: Clock;
  /** Kept alike with the matcher (the sessions' inventory). */
  readonly inventoryFollower?: InventoryFollower;
  /** Aborted when the service is asked to stop while starting: the rest of the matcher's load and the first account read are then skipped. */
  readonly startSignal?: AbortSignal;
}

/** The respondent loop of one replica. */
export interface Loop {
  readonly context: LoopContext;
  /** The loop's background tasks (loop-tasks.ts). */
  readonly runtime: LoopRuntime;
  /** Stops the background tasks (waiting for runs under way), the feed's notifier and the account's reads, then closes the loop store. */
  stop(): Promise<void>;
}

/**
 * Starts the respondent loop: opens the loop store, loads the matcher from the inventory, reads
 * the account's encryption settings, then starts the loop's background tasks (loop-tasks.ts).
 * Everything it opens is registered on one clean-up stack: a start that fails half-way closes
 * what it opened, and {@link Loop.stop} closes all of it, last opened first.
 */
export async function startLoop(options: LoopOptions): Promise<Loop> {
  const cleanup = new CleanupStack();
  try {
    return await assembleLoop(options, cleanup);
  } catch (error) {
    await cleanup.disposeAsync().catch((cleanupError: unknown) => {
      options.logger.warn({ err: cleanupError }, "the loop could not close what it had opened before its start failed");
    });
    throw error;
  }
}

async function assembleLoop(options: LoopOptions, cleanup: CleanupStack): Promise<Loop> {
  const { config, logger, inventory, cycles, metrics } = options;
  const store = cleanup.use(
    await openLoopStore(config.database, {
      yieldCutoffEntries: config.yieldCutoffEntries ?? DEFAULT_YIELD_CUTOFF.entries,
      speederFraction: config.speederFraction ?? DEFAULT_SPEEDER_FRACTION,
    }),
    (opened) => opened.close(),
  );
  const sds = createClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    paths: config.operationPaths,
    fetch: options.fetch,
    validation: "loose",
    retry: 1,
  });
  const placeholders = entryPlaceholders(config);
  const maxCpi = config.maxCpi ?? DEFAULT_MAX_CPI;
  const facts = new RoutingFacts({
    recontactStudyTypes: config.recontactStudyTypes ?? [],
    missingGroups: config.missingGroups ?? "route",
    // A Cpi that is not a price never reaches an entry, so never a sum (money.ts): the cycle quarantines
    // it; a survey stored before SYNC_MAX_CPI was lowered is held out here.
    unusable: (survey) => {
      const price = cpiProblem(survey.Cpi, maxCpi);
      if (price !== undefined) return { reason: "price", message: price };
      const url = entryLinkProblem(survey.SurveyUrl, { placeholders })?.message;
      return url === undefined ? undefined : { reason: "url", message: url };
    },
  });
  const loopMetrics = createLoopMetrics(
    metrics.registry,
    () => {
      const report = routingDataReport({ facts });
      return {
        groups: report.groups.unavailable,
        recontact: report.recontact.unavailable,
        stats: report.stats.unavailable,
      };
    },
    () => {
      const counts = { price: 0, url: 0 };
      for (const unusable of facts.unusable.values()) counts[unusable.reason] += 1;
      return counts;
    },
  );
  const runtime = new LoopRuntime({ clock: options.clock ?? systemClock, logger });
  // Disposed of last to first: the account's reads end first, so that a task waiting on one does not hold the stop.
  cleanup.defer(() => runtime.stop());
  const account = new AccountSettings({
    fetchAccount: async (signal) => (await sds.account.get({ signal })).data,
    logger,
    onRead: (verdicts) => {
      loopMetrics.recordVerdicts(verdicts);
    },
  });
  cleanup.defer(() => {
    account.stop();
  });
  const liveMatcher = new LiveMatcher({
    store: inventory,
    logger,
    facts,
    ...(options.inventoryFollower === undefined ? {} : { follower: options.inventoryFollower }),
    matcherOptions: matcherOptions(config),
  });
  const refresher = new RoutingDataRefresher({
    client: sds,
    store,
    facts,
    logger,
    settings: {
      refreshMs: (config.groupsRefreshSeconds ?? 600) * 1000,
      statsRefreshMs: (config.statsRefreshSeconds ?? 600) * 1000,
      cycleMs: config.intervalSeconds * 1000,
    },
  });
  addLoopTasks(runtime, { config, logger, store, inventory, cycles, liveMatcher, account, facts, refresher });

  await liveMatcher.start(options.startSignal);
  await firstAccountRead(account, { clock: runtime.clock, logger, startSignal: options.startSignal });
  // Every replica reads the routing data and the yield counts the store holds before it serves, so all rank and exclude alike.
  await runtime.runNow("routing-facts-reload");
  // A stop asked for during start: the service stops next, and a poll would only load in full what the stop abandoned.
  if (options.startSignal?.aborted)
    logger.info("start: a stop was asked for; the loop's background tasks are not started");
  else runtime.start();

  const outcomeNotifier = cleanup.use(
    feedNotifier("outcomes", () => store.latestSequence(), config, metrics),
    (notifier) => {
      notifier.close();
    },
  );
  const outcomesTotal = loopMetrics.outcomes;
  return {
    context: {
      liveMatcher,
      account,
      store,
      outcomeNotifier,
      refusals: new ReceiverRefusals(metrics.registry, logger),
      warnings: () => loopWarnings(account, config.outcomesPublicUrl),
      countOutcome: (outcome) => {
        outcomesTotal.inc({ outcome });
      },
      tokenParameter: config.outcomesTokenParameter ?? "vq_token",
      placeholders,
      maxCpi,
      facts,
      policy: routingPolicy(config),
      publicUrl: config.outcomesPublicUrl,
    },
    runtime,
    stop: () => cleanup.disposeAsync(),
  };
}

/**
 * The first read of the account, awaited briefly so the receiver is usable at once; an upstream
 * that hangs must not hold the start: until a read succeeds the receiver answers 503 and senders
 * retry. A stop asked for meanwhile ends the wait too: the service is about to stop, and a
 * hanging upstream would otherwise hold the shutdown for the whole wait. The wait is measured on
 * the runtime's clock, like the loop's other waits.
 */
async function firstAccountRead(
  account: AccountSettings,
  { clock, logger, startSignal }: { clock: Clock; logger: Logger; startSignal?: AbortSignal | undefined },
): Promise<void> {
  const waitOver = new AbortController();
  const stop = (): void => {
    waitOver.abort();
  };
  startSignal?.addEventListener("abort", stop, { once: true });
  if (startSignal?.aborted) stop();
  // refresh() never rejects (a failed read is logged): the wait ends at the read, a stop, or the clock's deadline.
  void account.refresh().finally(stop);
  await clock.sleep(ACCOUNT_START_WAIT_MS, waitOver.signal);
  startSignal?.removeEventListener("abort", stop);
  if (startSignal?.aborted) logger.info("start: a stop was asked for; not waiting for the account settings");
}
