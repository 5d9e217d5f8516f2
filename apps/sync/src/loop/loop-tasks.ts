import type { Logger } from "pino";
import type { AccountSettings } from "./account-settings.ts";
import type { CycleEvents, InventoryReader } from "./inventory-reader.ts";
import type { LiveMatcher } from "./live-matcher.ts";
import type { LoopConfig } from "./loop-settings.ts";
import { readRecontactStudyTypes, refreshRoutingData } from "./routing-setup.ts";
import type { RoutingDataRefresher } from "./routing-data-refresher.ts";
import type { RoutingFacts } from "./routing-facts.ts";
import type { LoopRuntime } from "./runtime/loop-runtime.ts";
import type { LoopStore } from "./store/loop-store.ts";

/** The windows read the last 7 days of hourly counts; a day more is kept, and older hours are deleted. */
const HOURLY_COUNTS_KEPT_MS = 8 * 24 * 3_600_000;

/** What the loop's background tasks work on. */
export interface LoopTaskParts {
  readonly config: LoopConfig & { readonly intervalSeconds: number };
  readonly logger: Logger;
  readonly store: LoopStore;
  readonly inventory: InventoryReader;
  readonly cycles: CycleEvents;
  readonly liveMatcher: LiveMatcher;
  readonly account: AccountSettings;
  readonly facts: RoutingFacts;
  readonly refresher: RoutingDataRefresher;
}

/**
 * Adds the loop's background work to `runtime`, each task with its interval from the
 * configuration table:
 *
 * - `matcher-follower` (`SYNC_MATCHER_POLL_MS`): the matcher applies the cycles committed to the
 *   store (every replica: followers run no cycle);
 * - `account-refresh` (`SYNC_INTERVAL`): the account's encryption settings are read again;
 * - `cycle-follower` (at the end of each cycle this replica runs, so on the leader): the matcher
 *   and the account at once;
 * - `routing-data-refresh` (at the end of each cycle too, once the matcher holds the cycle): the
 *   routing data that is due by the runtime's clock (groups and re-contact lists every
 *   `SYNC_GROUPS_REFRESH_SECONDS`, stats every `SYNC_STATS_REFRESH_SECONDS`), then the routing
 *   facts. A cycle end, not an interval, wakes it: followers run no cycle and fetch nothing, so
 *   the marketplace is asked once per replica set;
 * - `routing-facts-reload` (`SYNC_ROUTING_FACTS_RELOAD_MS`): every replica reads the routing data
 *   and the yield counts the store holds, so all rank and exclude alike;
 * - `window-advance` (`SYNC_WINDOW_ADVANCE_SECONDS`): hours that left the 24-hour and 7-day
 *   windows are taken out of their totals;
 * - `hourly-counts-pruning` (`SYNC_HOURLY_COUNTS_PRUNE_SECONDS`): hourly counts older than 8 days
 *   are deleted (the windows advanced first, so an hour leaves its totals before its row goes).
 */
export function addLoopTasks(runtime: LoopRuntime, parts: LoopTaskParts): void {
  const { config, logger, store, liveMatcher, account, facts } = parts;
  const { clock } = runtime;
  runtime.add({
    name: "matcher-follower",
    due: config.matcherPollMs ?? 1000,
    run: () => liveMatcher.refresh(),
    failure: "the matcher could not follow the store; it serves what it holds",
  });
  runtime.add({
    name: "account-refresh",
    due: config.intervalSeconds * 1000,
    run: () => account.refresh(),
    failure: "the account settings could not be read; the last read stays in use",
  });
  runtime.add(routingFactsReload(parts));
  runtime.add({
    name: "cycle-follower",
    due: () => parts.cycles.nextCycle().then(() => undefined),
    run: async () => {
      await Promise.all([
        liveMatcher.refresh().catch((error: unknown) => {
          logger.warn({ err: error }, "the matcher could not follow the store; it serves what it holds");
        }),
        account.refresh(),
      ]);
    },
    failure: "the matcher or the account could not be refreshed after a cycle",
  });
  runtime.add({
    name: "routing-data-refresh",
    due: () => parts.cycles.nextCycle().then(() => undefined),
    run: async (signal) => {
      // The refresh reads the cycle's surveys from the facts the matcher keeps: a refresh of the
      // matcher (coalesced with the cycle follower's) sees the cycle's commit. Not the account's
      // read: a hanging account must not hold the routing data back.
      await liveMatcher.refresh();
      if (isAborted(signal)) return;
      // Only the leader runs cycles, so the routing data is fetched once per replica set.
      await refreshRoutingData(parts.inventory, facts, parts.refresher, { signal, now: clock.now(), logger });
      if (!isAborted(signal)) await runtime.runNow("routing-facts-reload");
    },
    failure: "the routing data could not be refreshed after a cycle",
  });
  runtime.add({
    name: "window-advance",
    due: (config.windowAdvanceSeconds ?? 600) * 1000,
    run: () => store.advanceWindows(new Date(clock.now())),
    failure: "the conversion windows could not be advanced; they are tried again at the next pass",
  });
  runtime.add({
    name: "hourly-counts-pruning",
    due: (config.hourlyCountsPruneSeconds ?? 600) * 1000,
    run: async () => {
      const now = clock.now();
      await store.advanceWindows(new Date(now));
      await store.pruneHourlyCounts(new Date(now - HOURLY_COUNTS_KEPT_MS));
    },
    failure: "old hourly conversion counts could not be pruned; they are tried again at the next pass",
  });
}

/** Read through a function: an await between two reads may have aborted the signal. */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** The `routing-facts-reload` task: reads the routing data only when its version moved, the yield counts every time. */
function routingFactsReload(parts: LoopTaskParts) {
  const { config, logger, store, liveMatcher, facts, inventory } = parts;
  let routingVersion = -1;
  let studyTypesRead = false;
  return {
    name: "routing-facts-reload",
    due: config.routingFactsReloadMs ?? 2000,
    run: async () => {
      const version = await store.routingDataVersion();
      // Followers run no refresh: they learn which study types are re-contact studies here, once the leader stored the collection.
      if (version !== routingVersion || !studyTypesRead)
        studyTypesRead = await readRecontactStudyTypes(inventory, facts, logger);
      const data = version === routingVersion ? undefined : await store.readRoutingData();
      const counts = await store.yieldCounts();
      facts.update(liveMatcher.matcher, data, counts);
      routingVersion = version;
    },
    failure: "the routing data could not be read; the matcher keeps what it holds",
  };
}
