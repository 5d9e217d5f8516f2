import type { EventFeed, LoopStore } from "../loop/store/loop-store.ts";
import type { EventsMetrics } from "./events-metrics.ts";
import type { EventSource } from "./feed-events.ts";

/** A sink behind by more than this many seconds is named in `/readyz`'s warnings. */
export const LAG_WARNING_SECONDS = 60;

/** Where one sink stands in one feed, as every replica reads it from the store. */
export interface SinkFeedStatus {
  readonly sink: string;
  readonly feed: EventFeed;
  /** The last sequence acknowledged; null before the relay first ran. */
  readonly position: number | null;
  readonly latest: number;
  readonly lagRecords: number;
  readonly lagSeconds: number;
  /** When the oldest record not acknowledged was made, null when caught up. */
  readonly oldestPendingAt: string | null;
  readonly failingSince: string | null;
  readonly lastError: string | null;
  readonly updatedAt: string | null;
}

/** Options of {@link EventsMonitor}. */
export interface EventsMonitorOptions {
  readonly sinks: readonly string[];
  readonly sources: readonly EventSource[];
  readonly positions: Pick<LoopStore, "eventPositions">;
  readonly metrics: EventsMetrics;
  readonly now?: () => number;
}

/**
 * Reads where every sink stands from the store (positions, failure state) and the feeds' heads,
 * on every replica: the gauges, `/readyz`'s warnings, `GET /v1/events` and retention's hold all
 * come from one reading, so a follower tells the same as the leader.
 */
export class EventsMonitor {
  readonly #options: EventsMonitorOptions;
  #statuses: readonly SinkFeedStatus[] = [];

  constructor(options: EventsMonitorOptions) {
    this.#options = options;
  }

  /** The last reading. */
  get statuses(): readonly SinkFeedStatus[] {
    return this.#statuses;
  }

  /** Reads the store afresh and sets the gauges. */
  async refresh(): Promise<readonly SinkFeedStatus[]> {
    const { sinks, sources, positions, metrics, now = Date.now } = this.#options;
    const rows = await positions.eventPositions();
    const statuses: SinkFeedStatus[] = [];
    for (const source of sources) {
      const latest = await source.latest();
      const horizon = await source.horizon();
      for (const sink of sinks) {
        const row = rows.find((candidate) => candidate.sink === sink && candidate.feed === source.feed);
        const from = row?.position ?? horizon;
        const pending = latest > from ? (await source.read(from, 1))[0] : undefined;
        const lagSeconds = pending === undefined ? 0 : Math.max(0, (now() - Date.parse(pending.at)) / 1000);
        statuses.push({
          sink,
          feed: source.feed,
          position: row?.position ?? null,
          latest,
          lagRecords: Math.max(0, latest - from),
          lagSeconds,
          oldestPendingAt: pending?.at ?? null,
          failingSince: row?.failingSince ?? null,
          lastError: row?.lastError ?? null,
          updatedAt: row?.updatedAt ?? null,
        });
      }
    }
    for (const status of statuses) {
      metrics.lagRecords.set({ sink: status.sink, feed: status.feed }, status.lagRecords);
      metrics.lagSeconds.set({ sink: status.sink, feed: status.feed }, status.lagSeconds);
    }
    for (const sink of sinks)
      metrics.failing.set({ sink }, statuses.some((status) => status.sink === sink && status.failingSince) ? 1 : 0);
    this.#statuses = statuses;
    return statuses;
  }

  /** What `/readyz` says of the sinks: those failing, those behind after an error, and those behind by more than a minute. */
  warnings(): string[] {
    return this.#statuses.flatMap((status) => {
      const error = status.lastError === null ? "" : `; last error: ${status.lastError}`;
      if (status.failingSince !== null)
        return [
          `events: ${status.sink} is failing since ${status.failingSince} (${status.lagRecords} ${status.feed} waiting${error}); it is retried every 5 minutes, or at once with POST /v1/webhooks/{name}/resume`,
        ];
      // Behind while failing (NATS down, an endpoint refusing), or behind for long.
      if ((status.lastError !== null && status.lagRecords > 0) || status.lagSeconds > LAG_WARNING_SECONDS)
        return [
          `events: ${status.sink} is ${status.lagRecords} ${status.feed} (${Math.round(status.lagSeconds)} s) behind${error}`,
        ];
      return [];
    });
  }

  /**
   * For retention: per feed, the time of the oldest record some sink has not acknowledged (the
   * pruner keeps it and everything after it). A sink that never ran holds the whole feed.
   */
  async retentionHolds(): Promise<Partial<Record<EventFeed, Date>>> {
    const statuses = await this.refresh();
    const holds: Partial<Record<EventFeed, Date>> = {};
    for (const status of statuses) {
      const at =
        status.position === null
          ? new Date(0)
          : status.oldestPendingAt === null
            ? undefined
            : new Date(status.oldestPendingAt);
      const held = holds[status.feed];
      if (at !== undefined && (held === undefined || at < held)) holds[status.feed] = at;
    }
    return holds;
  }
}
