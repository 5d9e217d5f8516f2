import { createClient } from "@sds/client";
import { entryLinkProblem } from "@sds/routing";
import type { Logger } from "pino";
import type { DatabaseConfig } from "../database/database-config.ts";
import type { LoopConfig } from "./loop-settings.ts";
import type { SyncMetrics } from "../metrics/sync-metrics.ts";
import type { CycleEvents, InventoryReader } from "./inventory-reader.ts";
import { createLoopMetrics } from "./loop-metrics.ts";
import { routingDataReport } from "./loop-status.ts";
import { ReceiverRefusals } from "./receiver-refusals.ts";
import {
  entryPlaceholders,
  matcherOptions,
  readRecontactStudyTypes,
  refreshRoutingData,
  routingPolicy,
} from "./routing-setup.ts";
import { RoutingDataRefresher } from "./routing-data-refresher.ts";
import { RoutingFacts } from "./routing-facts.ts";
import { loopWarnings } from "./loop-warnings.ts";
import { openOutcomeStore } from "./store/open-loop-store.ts";
import type { FetchFunction } from "../upstream/counting-fetch.ts";
import type { OperationPaths } from "../upstream/operation-paths.ts";
import { feedNotifier } from "../feed/change-notifier.ts";
import { AccountSettings } from "./account-settings.ts";
import { LiveMatcher, type InventoryFollower } from "./live-matcher.ts";
import type { LoopContext } from "./loop-context.ts";

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
  /** How often the matcher checks the store for commits, in ms. @default 1000 */
  readonly matcherPollMs?: number;
  /** Kept alike with the matcher (the sessions' inventory). */
  readonly inventoryFollower?: InventoryFollower;
  /** Aborted when the service is asked to stop while starting: the rest of the matcher's load and the first account read are then skipped. */
  readonly startSignal?: AbortSignal;
}

/** The respondent loop of one replica. */
export interface Loop {
  readonly context: LoopContext;
  /** Stops following the store and the account, closes the outcome store. */
  stop(): Promise<void>;
}

/**
 * Starts the respondent loop: opens the outcome store, loads the matcher from the store, reads
 * the account's encryption settings; afterwards both are refreshed after every cycle this
 * replica runs and on timers (every replica: followers run no cycle).
 */
export async function startLoop(options: LoopOptions): Promise<Loop> {
  const { config, logger, inventory, cycles, metrics } = options;
  const outcomes = await openOutcomeStore(config.database);
  const sds = createClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    paths: config.operationPaths,
    fetch: options.fetch,
    validation: "loose",
    retry: 1,
  });
  const placeholders = entryPlaceholders(config);
  const facts = new RoutingFacts({
    recontactStudyTypes: config.recontactStudyTypes ?? [],
    missingGroups: config.missingGroups ?? "route",
    unusableUrl: (survey) => entryLinkProblem(survey.SurveyUrl, { placeholders })?.message,
  });
  const loopMetrics = createLoopMetrics(metrics.registry, () => {
    const report = routingDataReport({ facts });
    return {
      groups: report.groups.unavailable,
      recontact: report.recontact.unavailable,
      stats: report.stats.unavailable,
    };
  });
  const account = new AccountSettings({
    fetchAccount: async (signal) => (await sds.account.get({ signal })).data,
    logger,
    onRead: (verdicts) => {
      loopMetrics.recordVerdicts(verdicts);
    },
  });
  const liveMatcher = new LiveMatcher({
    store: inventory,
    logger,
    facts,
    ...(options.inventoryFollower === undefined ? {} : { follower: options.inventoryFollower }),
    matcherOptions: matcherOptions(config),
    ...(options.matcherPollMs === undefined ? {} : { pollMs: options.matcherPollMs }),
  });
  const refresher = new RoutingDataRefresher({
    client: sds,
    store: outcomes,
    facts,
    logger,
    settings: {
      refreshMs: (config.groupsRefreshSeconds ?? 600) * 1000,
      statsRefreshMs: (config.statsRefreshSeconds ?? 600) * 1000,
      cycleMs: config.intervalSeconds * 1000,
    },
  });
  const outcomesTotal = loopMetrics.outcomes;
  try {
    await liveMatcher.start(options.startSignal);
    // The first read is awaited briefly so the receiver is usable at once, but an upstream that
    // hangs must not hold the start: until a read succeeds the receiver answers 503 and senders retry.
    // A stop asked for meanwhile ends the wait too: the service is about to stop, and a hanging
    // upstream would otherwise hold the shutdown for the whole wait.
    const { startSignal } = options;
    const stopAsked = new Promise<void>((resolve) => {
      if (startSignal?.aborted) resolve();
      startSignal?.addEventListener(
        "abort",
        () => {
          resolve();
        },
        { once: true },
      );
    });
    const waited = await Promise.race([
      account.start(config.intervalSeconds * 1000).then(() => "read" as const),
      new Promise<"timeout">((resolve) => {
        setTimeout(() => {
          resolve("timeout");
        }, ACCOUNT_START_WAIT_MS).unref();
      }),
      stopAsked.then(() => "stop" as const),
    ]);
    if (waited === "stop") logger.info("start: a stop was asked for; not waiting for the account settings");
  } catch (error) {
    liveMatcher.stop();
    account.stop();
    await outcomes.close();
    throw error;
  }
  const state = { stopped: false };
  const isStopped = (): boolean => state.stopped;
  const refreshAbort = new AbortController();
  let refreshing: Promise<void> = Promise.resolve();
  const followCycles = async (): Promise<void> => {
    while (!isStopped()) {
      await cycles.nextCycle();
      if (isStopped()) return;
      await Promise.all([
        liveMatcher.refresh().catch((error: unknown) => {
          logger.warn({ err: error }, "the matcher could not follow the store; it serves what it holds");
        }),
        account.refresh(),
      ]);
      if (isStopped()) return;
      // Only the leader runs cycles, so the routing data is fetched once per replica set. Tracked, so
      // that a stop waits for a refresh under way before it closes the store the refresh writes to.
      refreshing = (async () => {
        await refreshRoutingData(inventory, facts, refresher, refreshAbort.signal, logger);
        if (!isStopped()) await followRoutingFacts();
      })();
      await refreshing;
    }
  };
  // Every replica reads the routing data and the yield counts the store holds, so all rank and exclude alike.
  let routingVersion = -1;
  let studyTypesRead = false;
  const followRoutingFacts = async (): Promise<void> => {
    // The timer or the cycle follower may fire while the loop stops: the store is closed by then.
    if (isStopped()) return;
    try {
      const version = await outcomes.routingDataVersion();
      // Followers run no refresh: they learn which study types are re-contact studies here, once the leader stored the collection.
      if (version !== routingVersion || !studyTypesRead)
        studyTypesRead = await readRecontactStudyTypes(inventory, facts, logger);
      const data = version === routingVersion ? undefined : await outcomes.readRoutingData();
      const counts = await outcomes.yieldCounts();
      facts.update(liveMatcher.matcher, data, counts);
      routingVersion = version;
    } catch (error) {
      if (!isStopped())
        logger.warn({ err: error }, "the routing data could not be read; the matcher keeps what it holds");
    }
  };
  await followRoutingFacts();
  const factsTimer = setInterval(() => void followRoutingFacts(), 2000);
  factsTimer.unref();
  void followCycles();
  // The windows read the last 7 days of hourly counts; older hours are dropped every ten minutes.
  const pruneHours = setInterval(() => {
    // The windows first: an hour leaving the last 7 days is subtracted from its totals before its row goes.
    const now = new Date();
    outcomes
      .advanceWindows(now)
      .then(() => outcomes.pruneHourlyCounts(new Date(now.getTime() - 8 * 24 * 3_600_000)))
      .catch((error: unknown) => {
        logger.warn(
          { err: error },
          "old hourly conversion counts could not be pruned; they are tried again in ten minutes",
        );
      });
  }, 600_000);
  pruneHours.unref();
  const outcomeNotifier = feedNotifier("outcomes", () => outcomes.latestSequence(), config, metrics);
  return {
    context: {
      liveMatcher,
      account,
      outcomes,
      outcomeNotifier,
      refusals: new ReceiverRefusals(metrics.registry, logger),
      warnings: () => loopWarnings(account, config.outcomesPublicUrl),
      countOutcome: (outcome) => {
        outcomesTotal.inc({ outcome });
      },
      tokenParameter: config.outcomesTokenParameter ?? "vq_token",
      placeholders,
      facts,
      policy: routingPolicy(config),
      publicUrl: config.outcomesPublicUrl,
    },
    async stop() {
      state.stopped = true;
      refreshAbort.abort();
      clearInterval(factsTimer);
      clearInterval(pruneHours);
      outcomeNotifier.close();
      liveMatcher.stop();
      account.stop();
      // The abort ends its fetches at once; it writes nothing after it (routing-data-refresher.ts).
      await refreshing.catch(() => undefined);
      await outcomes.close();
    },
  };
}
