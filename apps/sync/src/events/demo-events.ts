import { jetstreamManager, JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { LoopStore } from "../loop/store/loop-store.ts";
import type { Events } from "./events.ts";

/** What the demo's summary reads of the running service. */
export interface DemoService {
  /** The API's base URL. */
  readonly url: string;
  readonly events: Pick<Events, "monitor">;
  readonly loop: { readonly store: Pick<LoopStore, "listOutcomes"> };
}

/** The demo's own stream and subject prefix: it never touches a stream of the machine's. */
export const DEMO_NATS = { stream: "SDS_DEMO", subjectPrefix: "sdsdemo" } as const;

/**
 * Deletes the demo's stream (and its consumers) from an earlier run: a new demo store numbers its
 * outcomes from 1 again, and JetStream would drop them as repeats of the last run's. Rejects,
 * saying what to do, when no NATS server answers.
 */
export async function resetDemoStream(url: string): Promise<void> {
  const connection = await connect({ servers: url, timeout: 3000, maxReconnectAttempts: 0 }).catch((error: unknown) => {
    throw new Error(
      `no NATS server answers at ${url} (${(error as Error).message}): start one with JetStream (nats-server -js), or leave out --nats`,
    );
  });
  try {
    const manager = await jetstreamManager(connection);
    await manager.streams.delete(DEMO_NATS.stream).catch((error: unknown) => {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
    });
  } finally {
    await connection.close();
  }
}

/**
 * Waits (a few seconds at most) for the relay to publish what the demo recorded, then says what
 * went to NATS, how to watch completes and reversals arrive, and how to make a reversal.
 */
export async function describeDemoEvents(service: DemoService, url: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  let statuses = await service.events.monitor.refresh();
  while (statuses.some((status) => status.lagRecords > 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    statuses = await service.events.monitor.refresh();
  }
  const published = (feed: string) => statuses.find((status) => status.feed === feed)?.position ?? 0;
  const complete = (await service.loop.store.listOutcomes(0, 1000)).find((record) => record.outcome === "complete");
  const reversal = JSON.stringify({
    outcomes: [{ token: complete?.token ?? "TOKEN", outcome: "terminate", reason: "fraud" }],
  });
  return [
    `Events out: ${published("outcomes")} outcome and ${published("changes")} change events published to NATS JetStream at ${url}`,
    `(stream ${DEMO_NATS.stream}, subjects ${DEMO_NATS.subjectPrefix}.outcomes.<outcome> and ${DEMO_NATS.subjectPrefix}.changes.<type>).`,
    "Watch completes and reversals arrive, as a rewards ledger would (a durable consumer, docs/events.md):",
    `  node --experimental-strip-types apps/sync/examples/ledger-consumer.ts ${url} ${DEMO_NATS.stream} ${DEMO_NATS.subjectPrefix}`,
    "Then take a complete back (a reversal) and see the ledger debit it:",
    `  curl -s -X POST '${service.url}/v1/outcomes/reconcile' -H 'content-type: application/json' -d '${reversal}'`,
    `  curl -s '${service.url}/v1/events'       # where each sink stands`,
    "",
  ].join("\n");
}
