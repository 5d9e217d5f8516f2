import { afterEach } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { parseWebhookEndpoints } from "../src/events/event-settings.ts";
import { waitFor } from "./harness.ts";
import { readOutcomeFeed } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import {
  startWebhookReceiver,
  TEST_WEBHOOK_SECRET,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from "./webhook-receiver.ts";

/*
 * What the tests of events out to webhooks share (events-webhooks*.test.ts): receivers and
 * services closed after each test, the configuration of an endpoint, and the wait for a receiver
 * to have acknowledged the whole outcome feed.
 */

/** The configuration of one webhook endpoint `spec` (`name=url|filter,…`) on a private address, a 300 ms timeout. */
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

/** Waits until `target` acknowledged every outcome of the feed; the ids it acknowledged and the feed's sequences. */
export async function outcomesAcknowledged(target: WebhookReceiver, harness: ServiceHarness) {
  const sequences = (await readOutcomeFeed(harness)).map((record) => record.sequence);
  const outcomeIds = () => target.acknowledgedIds().filter((id) => id.startsWith("outcome-"));
  await waitFor(() => new Set(outcomeIds()).size >= sequences.length, 120_000);
  return { ids: outcomeIds(), sequences };
}

/**
 * Registers the file's clean-up (after each test, in reverse order) and returns starters whose
 * receivers and services it closes. Call once, at the top of a test file.
 */
export function webhookTestKit() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const receiver = async (options?: WebhookReceiverOptions): Promise<WebhookReceiver> => {
    const started = await startWebhookReceiver(options);
    cleanups.push(() => started.close());
    return started;
  };
  const service = async (options: Parameters<typeof startServiceHarness>[0]): Promise<ServiceHarness> => {
    const harness = await startServiceHarness(options);
    cleanups.push(() => harness.close());
    return harness;
  };
  return { cleanups, receiver, service };
}
