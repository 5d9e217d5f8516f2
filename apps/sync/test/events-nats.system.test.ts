import { describe, expect, it } from "vitest";
import { cleanupsAfterEach, closedAfterTest, natsClosedAfterTest, outcomesDelivered } from "./event-tests.ts";
import { expectExactlyOnceInOrder, floodOutcomes, sendOutcomesUntil } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { readOutcomeFeed } from "./loop-traffic.ts";
import { natsServerBinary, readStream, type TestNatsServer } from "./nats-server.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Events out to NATS JetStream through an outage of NATS (stopped 10 s, then restarted) and a
 * change of leader between two replicas on PostgreSQL: every outcome sds-sync acknowledged arrives
 * once and in sequence order. System tier: each waits out real time.
 */

const pgAvailable = await postgresAvailable();
const cleanups = cleanupsAfterEach();
const nats = (): Promise<TestNatsServer> => natsClosedAfterTest(cleanups);
const service = (options: Parameters<typeof closedAfterTest>[1]): Promise<ServiceHarness> =>
  closedAfterTest(cleanups, options);

describe.skipIf(natsServerBinary === undefined)(
  "events out to NATS JetStream through an outage and a change of leader",
  () => {
    it("keeps /readyz 200 with a warning naming the sink while NATS is stopped for 10 s, then catches up: each outcome once, in order", async () => {
      const server = await nats();
      const harness = await service({ config: { natsUrl: new URL(server.url) } });
      const stopSending = new AbortController();
      const sending = sendOutcomesUntil(() => harness.service.outcomesUrl, stopSending.signal, {
        concurrency: 2,
        pauseMs: 5,
        tokenPrefix: "outage",
      });
      await waitFor(async () => (await readStream(server.url, "SDS")).length > 50, 20_000);
      await server.stop();
      const stoppedAt = Date.now();
      await waitFor(async () => {
        const response = await harness.request("/readyz");
        const body = (await response.json()) as { warnings?: string[] };
        return (
          response.status === 200 && (body.warnings ?? []).some((warning) => warning.startsWith("events: nats is"))
        );
      }, 15_000);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - stoppedAt))));
      const recordedDuringOutage = (await readOutcomeFeed(harness)).length;
      await server.restart();
      const heldBack =
        recordedDuringOutage - new Set((await readStream(server.url, "SDS")).map((message) => message.msgId)).size;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      stopSending.abort();
      await sending;
      const { ids, sequences } = await outcomesDelivered(server, harness);
      expect(heldBack, "outcomes recorded while NATS was down").toBeGreaterThan(100);
      expect(expectExactlyOnceInOrder(ids, sequences, "outcome")).toBe(0);
    }, 90_000);

    it.skipIf(!pgAvailable)(
      "continues on the new leader from the stored position when leadership changes between two replicas on PostgreSQL",
      async () => {
        const server = await nats();
        const schema = freshSchemaName("sds_sync_events");
        cleanups.push(() => dropSchema(schema));
        const database = { kind: "postgres", connectionString: testDatabaseUrl, schema } as const;
        const config = { natsUrl: new URL(server.url) };
        const first = await startServiceHarness({ database, config, replicaId: "first", followerPollMs: 100 });
        let firstRunning = true;
        cleanups.push(async () => {
          if (firstRunning) await first.close();
        });
        const second = await service({ api: first.api, database, config, replicaId: "second", followerPollMs: 100 });
        expect(first.service.store.leadership.isLeader).toBe(true);
        // Outcomes go to whichever replica is up, as a load balancer sends them.
        const flood = floodOutcomes(
          () => (firstRunning ? first.service.outcomesUrl : second.service.outcomesUrl),
          800,
          4,
          "leader",
        );
        await waitFor(async () => (await readStream(server.url, "SDS")).length > 200, 30_000);
        firstRunning = false;
        await first.close();
        await waitFor(() => second.service.store.leadership.isLeader, 15_000);
        await flood;
        const { ids, sequences } = await outcomesDelivered(server, second);
        expect(sequences).toHaveLength(800);
        expectExactlyOnceInOrder(ids, sequences, "outcome");
        // The new leader did publish: it continued, it did not find the work done.
        const metrics = await (await second.request("/metrics")).text();
        const published = /^sds_sync_events_published_total\{sink="nats",feed="outcomes"\} (\d+)$/m.exec(metrics)?.[1];
        expect(Number(published)).toBeGreaterThan(0);
      },
      120_000,
    );
  },
);
