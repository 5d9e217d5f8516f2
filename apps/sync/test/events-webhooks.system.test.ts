import { describe, expect, it } from "vitest";
import {
  cleanupsAfterEach,
  closedAfterTest,
  outcomesAcknowledged,
  receiverClosedAfterTest,
  webhookConfig,
} from "./event-tests.ts";
import { expectExactlyOnceInOrder, floodOutcomes, sendOutcomesUntil } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { readOutcomeFeed } from "./loop-traffic.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { hostileAnswers, hostilityMet, type WebhookReceiver, type WebhookReceiverOptions } from "./webhook-receiver.ts";

/*
 * Events out to signed webhooks through an outage of the receiver (10 s, connections refused) and
 * a change of leader between two replicas on PostgreSQL, with a receiver that fails, times out and
 * answers slowly: every acknowledged outcome arrives once after de-duplication by webhook-id, in
 * order. System tier: each waits out real time (the outage, the lock's hand-over).
 */

const pgAvailable = await postgresAvailable();
const cleanups = cleanupsAfterEach();
const receiver = (options?: WebhookReceiverOptions): Promise<WebhookReceiver> =>
  receiverClosedAfterTest(cleanups, options);
const service = (options: Parameters<typeof closedAfterTest>[1]): Promise<ServiceHarness> =>
  closedAfterTest(cleanups, options);

describe("events out to webhooks through an outage and a change of leader", () => {
  it("holds the events back while a receiver that fails, times out and answers slowly is down for 10 s (connections refused), warns on /readyz, then delivers each once, in order", async () => {
    const target = await receiver({ answer: hostileAnswers(150) });
    const harness = await service({ config: webhookConfig(target.url, {}, `ledger=${target.url}|outcomes.>`) });
    const stopSending = new AbortController();
    const sending = sendOutcomesUntil(() => harness.service.outcomesUrl, stopSending.signal, {
      concurrency: 2,
      pauseMs: 80,
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
    const hostility = hostilityMet(target.received);
    expect(hostility.refused, "500s answered").toBeGreaterThan(0);
    expect(hostility.unanswered, "requests left unanswered past the timeout").toBeGreaterThan(0);
  }, 150_000);

  it.skipIf(!pgAvailable)(
    "continues on the new leader from the stored position when leadership changes between two replicas on PostgreSQL, to a receiver that fails, times out and answers slowly",
    async () => {
      const target = await receiver({ answer: hostileAnswers(150) });
      const schema = freshSchemaName("sds_sync_webhooks");
      cleanups.push(() => dropSchema(schema));
      const database = { kind: "postgres", connectionString: testDatabaseUrl, schema } as const;
      const config = webhookConfig(target.url, {}, `ledger=${target.url}|outcomes.>`);
      const first = await startServiceHarness({ database, config, replicaId: "first", followerPollMs: 100 });
      let firstRunning = true;
      cleanups.push(async () => {
        if (firstRunning) await first.close();
      });
      const second = await service({ api: first.api, database, config, replicaId: "second", followerPollMs: 100 });
      const flood = floodOutcomes(
        () => (firstRunning ? first.service.outcomesUrl : second.service.outcomesUrl),
        300,
        4,
        "leader",
      );
      await waitFor(() => target.received.length > 50, 30_000);
      firstRunning = false;
      await first.close();
      await waitFor(() => second.service.store.leadership.isLeader, 15_000);
      await flood;
      const { ids, sequences } = await outcomesAcknowledged(target, second);
      expect(sequences).toHaveLength(300);
      expectExactlyOnceInOrder(ids, sequences, "outcome");
      const hostility = hostilityMet(target.received);
      expect(hostility.refused, "500s answered").toBeGreaterThan(0);
      expect(hostility.unanswered, "requests left unanswered past the timeout").toBeGreaterThan(0);
      const metrics = await (await second.request("/metrics")).text();
      const published = /^sds_sync_events_published_total\{sink="webhook:ledger",feed="outcomes"\} (\d+)$/m.exec(
        metrics,
      )?.[1];
      expect(Number(published)).toBeGreaterThan(0);
    },
    150_000,
  );
});
