import { afterEach } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { parseWebhookEndpoints } from "../src/events/event-settings.ts";
import { waitFor } from "./harness.ts";
import { readOutcomeFeed } from "./loop-traffic.ts";
import { readStream, startNatsServer, type TestNatsServer } from "./nats-server.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import {
  startWebhookReceiver,
  TEST_WEBHOOK_SECRET,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from "./webhook-receiver.ts";

/*
 * What the tests of events out share (events-webhooks.test.ts, events-nats.test.ts and their
 * system-tier halves, which hold the outages and the leader changes): receivers, NATS servers and
 * services closed after each test, in reverse order, and the waits for every outcome delivered.
 */

/** Clean-ups a test registers, run in reverse order after each test of the calling file. */
export function cleanupsAfterEach(): (() => Promise<void>)[] {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

/** A service harness closed after the test. */
export async function closedAfterTest(
  cleanups: (() => Promise<void>)[],
  options: Parameters<typeof startServiceHarness>[0],
): Promise<ServiceHarness> {
  const harness = await startServiceHarness(options);
  cleanups.push(() => harness.close());
  return harness;
}

/** A webhook receiver closed after the test. */
export async function receiverClosedAfterTest(
  cleanups: (() => Promise<void>)[],
  options?: WebhookReceiverOptions,
): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(options);
  cleanups.push(() => started.close());
  return started;
}

export function webhookConfig(
  url: string,
  extra: Partial<SyncConfig> = {},
  spec = `ledger=${url}`,
): Partial<SyncConfig> {
  return {
    webhookEndpoints: parseWebhookEndpoints(spec),
    webhookSecret: TEST_WEBHOOK_SECRET,
    webhookAllowPrivate: true,
    webhookTimeoutMs: 300,
    ...extra,
  };
}

/** Waits until the receiver acknowledged every outcome of the feed; returns the ids and the feed's sequences. */
export async function outcomesAcknowledged(target: WebhookReceiver, harness: ServiceHarness) {
  const sequences = (await readOutcomeFeed(harness)).map((record) => record.sequence);
  const outcomeIds = () => target.acknowledgedIds().filter((id) => id.startsWith("outcome-"));
  await waitFor(() => new Set(outcomeIds()).size >= sequences.length, 120_000);
  return { ids: outcomeIds(), sequences };
}

/** A nats-server of the test's own (a free port, a temporary store), stopped after the test. */
export async function natsClosedAfterTest(cleanups: (() => Promise<void>)[]): Promise<TestNatsServer> {
  const server = await startNatsServer();
  cleanups.push(() => server.close());
  return server;
}

/** The outcome ids in the stream, and the outcomes the feed holds, once the stream has them all. */
export async function outcomesDelivered(server: TestNatsServer, harness: ServiceHarness) {
  const feed = await readOutcomeFeed(harness);
  let ids: (string | undefined)[] = [];
  await waitFor(async () => {
    ids = (await readStream(server.url, "SDS"))
      .map((message) => message.msgId)
      .filter((id) => id?.startsWith("outcome-"));
    return new Set(ids).size >= feed.length;
  }, 30_000);
  return { ids, sequences: feed.map((record) => record.sequence) };
}
