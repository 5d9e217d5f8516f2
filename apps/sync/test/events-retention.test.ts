import { afterEach, describe, expect, it } from "vitest";
import { parseWebhookEndpoints } from "../src/events/event-settings.ts";
import { Pruner } from "../src/retention/pruner.ts";
import { floodOutcomes } from "./event-delivery.ts";
import { silentLogger, waitFor } from "./harness.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from "./webhook-receiver.ts";

/*
 * Retention never prunes what a sink has not delivered: the pruner's horizon for a feed stops at
 * the oldest record some sink still holds back, whatever its age.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(): Promise<{ harness: ServiceHarness; receiver: WebhookReceiver }> {
  // The endpoint takes the first two outcomes and refuses the rest.
  const receiver = await startWebhookReceiver({
    answer: (id) => (Number(id.split("-")[1]) <= 2 ? { status: 204 } : { status: 503 }),
  });
  cleanups.push(() => receiver.close());
  const harness = await startServiceHarness({
    config: {
      webhookEndpoints: parseWebhookEndpoints(`ledger=${receiver.url}|outcomes.>`),
      webhookSecret: TEST_WEBHOOK_SECRET,
      webhookAllowPrivate: true,
    },
    pruneEveryMs: 3_600_000,
  });
  cleanups.push(() => harness.close());
  await floodOutcomes(() => harness.service.outcomesUrl, 5, 1, "kept");
  await waitFor(async () => {
    const statuses = await harness.service.events.monitor.refresh();
    // The change feed's relay passes over every change (the endpoint takes outcomes only): once it
    // has, nothing holds the change feed, whichever relay ran first.
    return (
      statuses.some((status) => status.feed === "outcomes" && status.position === 2) &&
      statuses.some((status) => status.feed === "changes" && status.lagRecords === 0)
    );
  });
  return { harness, receiver };
}

/** A pruner over the service's stores with a clock an hour ahead: every record is past a one-minute retention. */
function prunerAnHourLater(harness: ServiceHarness, withHolds: boolean): Pruner {
  const { service } = harness;
  return new Pruner({
    store: service.store,
    retentionMs: 60_000,
    outcomes: { store: service.loop.store, retentionMs: 60_000 },
    logger: silentLogger,
    now: () => Date.now() + 3_600_000,
    ...(withHolds ? { holds: () => service.events.retentionHolds() } : {}),
  });
}

describe("retention with events out", () => {
  it("keeps every outcome a webhook has not acknowledged, however old, and prunes those it has", async () => {
    const { harness } = await setUp();
    const pass = await prunerAnHourLater(harness, true).pruneOnce();
    // 1 and 2 go (unless one shares its millisecond with 3: the hold is a time, so it errs on keeping).
    expect(pass.deleted.outcomes).toBeLessThanOrEqual(2);
    const kept = await harness.service.loop.store.listOutcomes(0, 10);
    expect(kept.map((record) => record.sequence).slice(-3)).toEqual([3, 4, 5]);
    // The change feed was passed over by this endpoint (outcomes only): nothing holds it.
    expect(pass.deleted.changes).toBeGreaterThan(0);
  });

  it("would prune them all without the hold (what the hold prevents)", async () => {
    const { harness } = await setUp();
    const pass = await prunerAnHourLater(harness, false).pruneOnce();
    expect(pass.deleted.outcomes).toBe(5);
  });
});
