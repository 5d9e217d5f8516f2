import type { SyncStore } from "../store/store.ts";
import { MetricsRegistry, type Counter, type Gauge, type Histogram } from "./registry.ts";

/** Every metric sds-sync exposes on `/metrics`. */
export interface SyncMetrics {
  readonly registry: MetricsRegistry;
  readonly cycleDuration: Histogram;
  readonly cycles: Counter;
  readonly upstreamRequests: Counter;
  readonly changes: Counter;
  readonly quarantinedItems: Counter;
  readonly fetchFailures: Counter;
  readonly lastSuccess: Gauge;
  readonly surveys: Gauge;
  readonly needsRefetch: Gauge;
  readonly quarantineSize: Gauge;
  readonly latestSequence: Gauge;
  readonly leader: Gauge;
  readonly closuresHeld: Gauge;
}

/**
 * Creates the service's metrics. Survey counts, the refetch backlog, the quarantine size and the
 * latest change sequence are read from the store at scrape time, so every replica reports the
 * shared store's truth, not only what it wrote itself.
 */
export function createSyncMetrics(store: SyncStore): SyncMetrics {
  const registry = new MetricsRegistry();
  const metrics: SyncMetrics = {
    registry,
    cycleDuration: registry.histogram("sds_sync_cycle_duration_seconds", "Duration of sync cycles run by this replica.", [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]),
    cycles: registry.counter("sds_sync_cycles_total", "Sync cycles run by this replica, by outcome."),
    upstreamRequests: registry.counter("sds_sync_upstream_requests_total", "HTTP requests to the Supplier Data Service, by operation and status (0: no response)."),
    changes: registry.counter("sds_sync_changes_total", "Changes written to the feed by this replica, by type."),
    quarantinedItems: registry.counter("sds_sync_quarantined_items_total", "Malformed upstream items quarantined by this replica."),
    fetchFailures: registry.counter("sds_sync_fetch_failures_total", "Per-survey fetches that failed (the survey is refetched next cycle), by operation."),
    lastSuccess: registry.gauge("sds_sync_last_success_timestamp_seconds", "Unix time at which the last successful cycle (of any replica) finished."),
    surveys: registry.gauge("sds_sync_surveys", "Surveys in the store, by status."),
    needsRefetch: registry.gauge("sds_sync_surveys_needing_refetch", "Surveys whose qualifications or quotas must be fetched again."),
    quarantineSize: registry.gauge("sds_sync_quarantine_items", "Distinct items in quarantine."),
    latestSequence: registry.gauge("sds_sync_change_sequence", "Highest sequence number of the change feed."),
    leader: registry.gauge("sds_sync_leader", "1 when this replica leads (runs the cycles), else 0."),
    closuresHeld: registry.gauge("sds_sync_closures_held", "Surveys absent from the live list whose closure the mass-closure guard holds (as of the last successful cycle)."),
  };
  registry.addCollector(async () => {
    const [stats, lastSuccess] = await Promise.all([store.stats(), store.lastSuccessfulRun()]);
    metrics.surveys.set(stats.live, { status: "live" });
    metrics.surveys.set(stats.closed, { status: "closed" });
    metrics.needsRefetch.set(stats.needsRefetch);
    metrics.quarantineSize.set(stats.quarantined);
    metrics.latestSequence.set(stats.latestSequence);
    if (lastSuccess) metrics.lastSuccess.set(lastSuccess.finishedAt.getTime() / 1000);
    metrics.closuresHeld.set(lastSuccess?.counts.closuresHeld ?? 0);
  });
  return metrics;
}
