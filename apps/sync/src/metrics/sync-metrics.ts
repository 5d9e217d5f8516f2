import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { changeTypes, type SyncStore } from "../inventory-store/store.ts";

/*
 * The metrics of sds-sync, on prom-client (names validated, text format escaped, and the process
 * metrics operators expect: RSS, heap by space, event-loop lag, GC pauses, open handles). One
 * registry per service, not prom-client's global one, so several services in one process (tests,
 * benchmarks) do not share counters.
 */

/** Every metric sds-sync exposes on `/metrics`. */
export interface SyncMetrics {
  readonly registry: Registry;
  readonly cycleDuration: Histogram<"status">;
  readonly cycles: Counter<"status">;
  readonly upstreamRequests: Counter<"operation" | "status">;
  readonly changes: Counter<"type">;
  readonly quarantinedItems: Counter;
  readonly fetchFailures: Counter<"operation">;
  readonly lastSuccess: Gauge;
  readonly surveys: Gauge<"status">;
  readonly needsRefetch: Gauge;
  readonly quarantineSize: Gauge;
  readonly latestSequence: Gauge;
  readonly leader: Gauge;
  readonly closuresHeld: Gauge;
  /** Readers long-polling each feed (`wait=`) on this replica now. */
  readonly longPollsWaiting: Gauge<"feed">;
  /** Long-polls turned away with 503 because every place was taken (`SYNC_MAX_LONG_POLLS`). */
  readonly longPollsRefused: Counter<"feed">;
  /** The exposition: gauges read from the store first, then every metric. */
  render(): Promise<string>;
}

/** Outcomes of a cycle, as the `status` label of the cycle metrics. */
const cycleStatuses = ["succeeded", "failed", "aborted"] as const;
/** The feeds readers can long-poll, as the `feed` label. */
export const longPollFeeds = ["changes", "outcomes"] as const;
/** Per-survey operations, as the `operation` label of `sds_sync_fetch_failures_total`. */
const fetchOperations = ["getSurveyQualifications", "getSurveyQuotas"] as const;

/**
 * Creates the service's metrics. Survey counts, the refetch backlog, the quarantine size and the
 * latest change sequence are read from the store at scrape time, so every replica reports the
 * shared store's truth, not only what it wrote itself. Every series whose labels are known in
 * advance exists from the start at 0, so that `increase()` and `rate()` see the first event.
 */
export function createSyncMetrics(store: SyncStore): SyncMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool: "non-counter metrics should not have _total suffix");
  // the per-type gauges nodejs_active_handles, _requests and _resources say the same and remain.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
    registry.removeSingleMetric(name);
  const registers = [registry];
  const metrics = {
    registry,
    cycleDuration: new Histogram({
      name: "sds_sync_cycle_duration_seconds",
      help: "Duration of sync cycles run by this replica.",
      labelNames: ["status"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    cycles: new Counter({
      name: "sds_sync_cycles_total",
      help: "Sync cycles run by this replica, by outcome.",
      labelNames: ["status"],
      registers,
    }),
    upstreamRequests: new Counter({
      name: "sds_sync_upstream_requests_total",
      help: "HTTP requests to the Supplier Data Service, by operation and status (0: no response).",
      labelNames: ["operation", "status"],
      registers,
    }),
    changes: new Counter({
      name: "sds_sync_changes_total",
      help: "Changes written to the feed by this replica, by type.",
      labelNames: ["type"],
      registers,
    }),
    quarantinedItems: new Counter({
      name: "sds_sync_quarantined_items_total",
      help: "Malformed upstream items quarantined by this replica.",
      registers,
    }),
    fetchFailures: new Counter({
      name: "sds_sync_fetch_failures_total",
      help: "Per-survey fetches that failed (the survey is refetched next cycle), by operation.",
      labelNames: ["operation"],
      registers,
    }),
    lastSuccess: new Gauge({
      name: "sds_sync_last_success_timestamp_seconds",
      help: "Unix time at which the last successful cycle (of any replica) finished; 0 before the first.",
      registers,
    }),
    surveys: new Gauge({
      name: "sds_sync_surveys",
      help: "Surveys in the store, by status.",
      labelNames: ["status"],
      registers,
    }),
    needsRefetch: new Gauge({
      name: "sds_sync_surveys_needing_refetch",
      help: "Live surveys whose qualifications or quotas must be fetched again.",
      registers,
    }),
    quarantineSize: new Gauge({
      name: "sds_sync_quarantine_items",
      help: "Distinct unresolved items in quarantine.",
      registers,
    }),
    latestSequence: new Gauge({
      name: "sds_sync_change_sequence",
      help: "Highest sequence number of the change feed.",
      registers,
    }),
    leader: new Gauge({
      name: "sds_sync_leader",
      help: "1 when this replica leads (runs the cycles), else 0.",
      registers,
    }),
    closuresHeld: new Gauge({
      name: "sds_sync_closures_held",
      help: "Surveys absent from the live list whose closure the mass-closure guard holds (as of the last successful cycle).",
      registers,
    }),
    longPollsWaiting: new Gauge({
      name: "sds_sync_long_polls_waiting",
      help: "Readers long-polling a feed (wait=) on this replica now, by feed.",
      labelNames: ["feed"],
      registers,
    }),
    longPollsRefused: new Counter({
      name: "sds_sync_long_polls_refused_total",
      help: "Long-polls answered 503 because SYNC_MAX_LONG_POLLS readers were already waiting on the feed, by feed.",
      labelNames: ["feed"],
      registers,
    }),
  };
  for (const status of cycleStatuses) {
    metrics.cycles.inc({ status }, 0);
    metrics.cycleDuration.zero({ status });
  }
  for (const type of changeTypes) metrics.changes.inc({ type }, 0);
  for (const operation of fetchOperations) metrics.fetchFailures.inc({ operation }, 0);
  for (const status of ["live", "closed"] as const) metrics.surveys.set({ status }, 0);
  for (const feed of longPollFeeds) {
    metrics.longPollsWaiting.set({ feed }, 0);
    metrics.longPollsRefused.inc({ feed }, 0);
  }

  /** Reads the shared gauges from the store; a failing read leaves them as they were (the scrape still answers). */
  const readStore = async (): Promise<void> => {
    const [stats, lastSuccess] = await Promise.all([store.stats(), store.lastSuccessfulRun()]);
    metrics.surveys.set({ status: "live" }, stats.live);
    metrics.surveys.set({ status: "closed" }, stats.closed);
    metrics.needsRefetch.set(stats.needsRefetch);
    metrics.quarantineSize.set(stats.quarantined);
    metrics.latestSequence.set(stats.latestSequence);
    if (lastSuccess) metrics.lastSuccess.set(lastSuccess.finishedAt.getTime() / 1000);
    metrics.closuresHeld.set(lastSuccess?.counts.closuresHeld ?? 0);
  };
  return {
    ...metrics,
    async render() {
      await readStore().catch(() => undefined);
      return registry.metrics();
    },
  };
}
