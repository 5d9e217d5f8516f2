import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { ConfigError } from "../common/errors.ts";
import type { ChangeNotifier } from "../feed/change-notifier.ts";
import type { RouteModule } from "../http/route-module.ts";
import type { EventFeed, LoopStore } from "../loop/store/loop-store.ts";
import type { SyncStore } from "../inventory-store/store.ts";
import type { EventsConfig } from "./event-settings.ts";
import type { EventSink } from "./event-sink.ts";
import { eventRoutes } from "./event-routes.ts";
import { createEventsMetrics } from "./events-metrics.ts";
import { EventsMonitor } from "./events-monitor.ts";
import { changeSource, outcomeSource } from "./feed-events.ts";
import { NatsSink } from "./nats-sink.ts";
import { hostOf, nonPublicAddressOf } from "./private-addresses.ts";
import type { Clock } from "../loop/runtime/clock.ts";
import { FeedRelay, type RelayBackoff } from "./relay.ts";
import { WebhookSink } from "./webhook-sink.ts";

/** How often every replica reads where the sinks stand (gauges, warnings). */
const MONITOR_EVERY_MS = 5000;

/** Options of {@link startEvents}. */
export interface EventsOptions {
  readonly config: EventsConfig;
  readonly logger: Logger;
  readonly inventory: SyncStore;
  readonly outcomes: LoopStore;
  readonly registry: Registry;
  /** The feeds' notifiers: commits of this replica wake the relays at once. */
  readonly notifiers?: Partial<Record<EventFeed, Pick<ChangeNotifier, "subscribe">>>;
  /** Time between two reads of a feed with nothing new. @default 200 */
  readonly pollMs?: number;
  readonly clock?: Clock;
  /** The relays' pauses between retries. @default first within 1 s, doubling, at most the sink's longest */
  readonly backoff?: RelayBackoff;
}

/** Events out as the service runs them. */
export interface Events {
  /** Whether any sink is configured. */
  readonly enabled: boolean;
  readonly routes: RouteModule;
  readonly monitor: EventsMonitor;
  /** The relays (one per sink and feed), for tests. */
  readonly relays: readonly FeedRelay[];
  /** Sinks behind or failing, for `/readyz`. */
  warnings(): string[];
  /** For the pruner: per feed, the oldest record a sink has not acknowledged. */
  retentionHolds(): Promise<Partial<Record<EventFeed, Date>>>;
  /** Starts the relays (they act only while this replica leads). */
  start(): void;
  stop(): Promise<void>;
}

/**
 * Refuses, before anything starts, a webhook endpoint whose host is or resolves to a private or
 * loopback address unless `SYNC_WEBHOOK_ALLOW_PRIVATE` (a ConfigError: exit 78).
 */
export async function checkWebhookAddresses(config: EventsConfig): Promise<void> {
  if (config.webhookAllowPrivate === true) return;
  for (const endpoint of config.webhookEndpoints ?? []) {
    const address = await nonPublicAddressOf(hostOf(endpoint.url));
    if (address !== undefined)
      throw new ConfigError([
        {
          variable: "SYNC_WEBHOOK_URLS",
          message: `${endpoint.name}: ${endpoint.url.host} is or resolves to a private or loopback address (${address}); set SYNC_WEBHOOK_ALLOW_PRIVATE=true if that is intended`,
        },
      ]);
  }
}

/**
 * Builds events out: a sink for NATS (`SYNC_NATS_URL`) and one per webhook endpoint
 * (`SYNC_WEBHOOK_URLS`), a relay per sink and feed, the monitor, the metrics and the routes.
 * The service checks the webhooks' addresses ({@link checkWebhookAddresses}) before anything opens.
 */
export function createEvents(options: EventsOptions): Events {
  const { config, logger, inventory, outcomes, registry, notifiers } = options;
  const sinks: EventSink[] = [];
  if (config.natsUrl !== undefined)
    sinks.push(
      new NatsSink({
        url: config.natsUrl,
        credsFile: config.natsCredsFile,
        subjectPrefix: config.natsSubjectPrefix ?? "sds",
        stream: config.natsStream ?? "SDS",
        maxAgeSeconds: config.natsMaxAgeSeconds ?? 7 * 24 * 3600,
        replicas: config.natsReplicas ?? 1,
        logger,
      }),
    );
  const webhooks = config.webhookEndpoints ?? [];
  for (const endpoint of webhooks)
    sinks.push(
      new WebhookSink({
        endpoint,
        secret: config.webhookSecret ?? "",
        timeoutMs: config.webhookTimeoutMs ?? 5000,
        allowPrivate: config.webhookAllowPrivate ?? false,
      }),
    );
  const sources = [outcomeSource(outcomes, inventory), changeSource(inventory)];
  const metrics = createEventsMetrics(
    registry,
    sinks.map((sink) => sink.name),
    sources.map((source) => source.feed),
  );
  const relays = sinks.flatMap((sink) =>
    sources.map(
      (source) =>
        new FeedRelay({
          sink,
          source,
          positions: outcomes,
          isLeader: () => inventory.leadership.isLeader,
          logger,
          observer: metrics,
          retryForMs: sink.kind === "webhook" ? (config.webhookRetryHours ?? 24) * 3_600_000 : undefined,
          ...(notifiers?.[source.feed] === undefined
            ? {}
            : { news: (listener: () => void) => notifiers[source.feed]?.subscribe(listener) ?? (() => undefined) }),
          ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
          ...(options.clock === undefined ? {} : { clock: options.clock }),
          ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
        }),
    ),
  );
  const monitor = new EventsMonitor({
    sinks: sinks.map((sink) => sink.name),
    sources,
    positions: outcomes,
    metrics,
    ...(options.clock === undefined ? {} : { now: () => options.clock?.now() ?? Date.now() }),
  });
  let timer: NodeJS.Timeout | undefined;
  const refresh = () => {
    monitor.refresh().catch((error: unknown) => {
      logger.debug({ err: error }, "events: could not read where the sinks stand");
    });
  };
  return {
    enabled: sinks.length > 0,
    monitor,
    relays,
    routes: eventRoutes({
      webhooks: webhooks.map((endpoint) => endpoint.name),
      isLeader: () => inventory.leadership.isLeader,
      refresh: () => monitor.refresh(),
      resume: (name) => {
        for (const relay of relays) if (relay.state.sink === `webhook:${name}`) relay.resume();
      },
    }),
    warnings: () => monitor.warnings(),
    retentionHolds: () => (sinks.length === 0 ? Promise.resolve({}) : monitor.retentionHolds()),
    start() {
      if (sinks.length === 0) return;
      for (const relay of relays) relay.start();
      refresh();
      timer = setInterval(refresh, MONITOR_EVERY_MS);
      timer.unref();
      logger.info({ sinks: sinks.map((sink) => sink.name) }, "events: relaying the outcome and change feeds");
    },
    async stop() {
      clearInterval(timer);
      await Promise.all(relays.map((relay) => relay.stop()));
      await Promise.all(sinks.map((sink) => sink.close()));
    },
  };
}
