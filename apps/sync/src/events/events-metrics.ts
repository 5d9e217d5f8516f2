import { Counter, Gauge, type Registry } from "prom-client";
import type { RelayObserver } from "./relay.ts";

/** The metrics of events out, registered in the service's registry (present, without series, when no sink is set). */
export interface EventsMetrics extends RelayObserver {
  readonly lagRecords: Gauge<"sink" | "feed">;
  readonly lagSeconds: Gauge<"sink" | "feed">;
  readonly failing: Gauge<"sink">;
}

/** Registers the events' metrics; each sink's series exist from the start at 0. */
export function createEventsMetrics(
  registry: Registry,
  sinks: readonly string[],
  feeds: readonly string[],
): EventsMetrics {
  const registers = [registry];
  const published = new Counter({
    name: "sds_sync_events_published_total",
    help: "Events acknowledged by each sink (JetStream, a webhook endpoint) as published by this replica, by feed.",
    labelNames: ["sink", "feed"],
    registers,
  });
  const failures = new Counter({
    name: "sds_sync_events_delivery_failures_total",
    help: "Failed delivery attempts (each retry counts), by sink and feed.",
    labelNames: ["sink", "feed"],
    registers,
  });
  const skipped = new Counter({
    name: "sds_sync_events_skipped_total",
    help: "Feed records pruned before a sink got them (never expected: retention holds undelivered records back).",
    labelNames: ["sink", "feed"],
    registers,
  });
  const metrics: EventsMetrics = {
    lagRecords: new Gauge({
      name: "sds_sync_events_lag_records",
      help: "Feed records a sink has not acknowledged yet (read from the store: every replica reports the same).",
      labelNames: ["sink", "feed"],
      registers,
    }),
    lagSeconds: new Gauge({
      name: "sds_sync_events_lag_seconds",
      help: "Age of the oldest feed record a sink has not acknowledged, 0 when it is caught up.",
      labelNames: ["sink", "feed"],
      registers,
    }),
    failing: new Gauge({
      name: "sds_sync_events_sink_failing",
      help: "1 while a sink is marked failing (an event retried past SYNC_WEBHOOK_RETRY_HOURS).",
      labelNames: ["sink"],
      registers,
    }),
    delivered: (sink, feed, count) => {
      published.inc({ sink, feed }, count);
    },
    failed: (sink, feed) => {
      failures.inc({ sink, feed });
    },
    skipped: (sink, feed, count) => {
      skipped.inc({ sink, feed }, count);
    },
  };
  for (const sink of sinks) {
    metrics.failing.set({ sink }, 0);
    for (const feed of feeds) {
      published.inc({ sink, feed }, 0);
      failures.inc({ sink, feed }, 0);
      skipped.inc({ sink, feed }, 0);
      metrics.lagRecords.set({ sink, feed }, 0);
      metrics.lagSeconds.set({ sink, feed }, 0);
    }
  }
  return metrics;
}
