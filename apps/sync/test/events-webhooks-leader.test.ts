import { describe, expect, it } from "vitest";
import { expectExactlyOnceInOrder, floodOutcomes } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness } from "./service-harness.ts";
import { outcomesAcknowledged, webhookConfig, webhookTestKit } from "./webhook-events.ts";
import { hostileAnswers, expectHostilityMet } from "./webhook-receiver.ts";

/*
 * Events out to a webhook receiver across a leader change between two replicas on PostgreSQL,
 * during a flood: the new leader continues from the position the old one stored, and every
 * outcome arrives once, in order, through a receiver that fails, times out and answers slowly.
 */

const pgAvailable = await postgresAvailable();
const { receiver, service, cleanups } = webhookTestKit();

describe("events out to webhooks across a leader change", () => {
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
      expectHostilityMet(target.received);
      const metrics = await (await second.request("/metrics")).text();
      const published = /^sds_sync_events_published_total\{sink="webhook:ledger",feed="outcomes"\} (\d+)$/m.exec(
        metrics,
      )?.[1];
      expect(Number(published)).toBeGreaterThan(0);
    },
    150_000,
  );
});
