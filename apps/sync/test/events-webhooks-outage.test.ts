import { describe, expect, it } from "vitest";
import { expectExactlyOnceInOrder, sendOutcomesUntil } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { readOutcomeFeed } from "./loop-traffic.ts";
import { outcomesAcknowledged, webhookConfig, webhookTestKit } from "./webhook-events.ts";
import { hostileAnswers, expectHostilityMet } from "./webhook-receiver.ts";

/*
 * Events out to a webhook receiver that is down for 10 s (connections refused) while outcomes
 * keep coming, and that fails, times out and answers slowly when it is up: the relay holds the
 * events back, /readyz warns and stays 200, and every outcome arrives once, in order, after.
 */

const { receiver, service } = webhookTestKit();

describe("events out to a webhook receiver that goes down", () => {
  it("holds the events back while a receiver that fails, times out and answers slowly is down for 10 s (connections refused), warns on /readyz, then delivers each once, in order", async () => {
    const target = await receiver({ answer: hostileAnswers(150) });
    const harness = await service({ config: webhookConfig(target.url, {}, `ledger=${target.url}|outcomes.>`) });
    const stopSending = new AbortController();
    const sending = sendOutcomesUntil(() => harness.service.outcomesUrl, stopSending.signal, {
      // A steady flow (about 8 outcomes a second), so the outage holds back dozens and the
      // catch-up through the hostile receiver's slow answers stays short.
      concurrency: 2,
      pauseMs: 250,
      tokenPrefix: "down",
    });
    await waitFor(() => target.received.length > 10, 20_000);
    await target.pause();
    const stoppedAt = Date.now();
    await waitFor(async () => {
      const body = (await (await harness.request("/readyz")).json()) as { warnings?: string[] };
      return (body.warnings ?? []).some((warning) => warning.startsWith("events: webhook:ledger is"));
    }, 15_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - stoppedAt))));
    const heldBack = (await readOutcomeFeed(harness)).length - new Set(target.acknowledgedIds()).size;
    await target.listenAgain();
    await new Promise((resolve) => setTimeout(resolve, 500));
    stopSending.abort();
    await sending;
    const { ids, sequences } = await outcomesAcknowledged(target, harness);
    expect(heldBack).toBeGreaterThan(20);
    expectExactlyOnceInOrder(ids, sequences, "outcome");
    expectHostilityMet(target.received);
  }, 150_000);
});
