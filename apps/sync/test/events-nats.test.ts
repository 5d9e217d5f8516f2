import pg from "pg";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { advisoryLockKey } from "../src/database/advisory-lock.ts";
import { cleanupsAfterEach, closedAfterTest, natsClosedAfterTest, outcomesDelivered } from "./event-tests.ts";
import { expectExactlyOnceInOrder, sendOutcomesUntil } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { issueEntryLink, readOutcomeFeed, receiveOutcome } from "./loop-traffic.ts";
import { natsServerBinary, readStream, type TestNatsServer } from "./nats-server.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import type { ServiceHarness } from "./service-harness.ts";

/*
 * Events out to NATS JetStream, against a nats-server each test starts on a free port with its
 * own store: every outcome sds-sync acknowledged arrives once (JetStream drops repeats by
 * Nats-Msg-Id) and in sequence order. The outage of NATS and the change of leader, which take
 * real time, are in events-nats.system.test.ts.
 */

const pgAvailable = await postgresAvailable();
const ledgerExample = fileURLToPath(new URL("../examples/ledger-consumer.ts", import.meta.url));
const cleanups = cleanupsAfterEach();
const nats = (): Promise<TestNatsServer> => natsClosedAfterTest(cleanups);
const service = (options: Parameters<typeof closedAfterTest>[1]): Promise<ServiceHarness> =>
  closedAfterTest(cleanups, options);

describe.skipIf(natsServerBinary === undefined)("events out to NATS JetStream", () => {
  it("publishes each outcome with its entry's uid and the survey's Cpi, and each change, under its subject and Nats-Msg-Id", async () => {
    const server = await nats();
    const harness = await service({
      api: loopFake([loopSurvey(9101, { Cpi: "2.50" })]),
      config: { natsUrl: new URL(server.url) },
    });
    await issueEntryLink(harness, 9101, "tok-1");
    await receiveOutcome(harness, "complete", "tok-1");
    await receiveOutcome(harness, "terminate", "tok-1");
    await receiveOutcome(harness, "complete", "orphan-1");
    let messages: Awaited<ReturnType<typeof readStream>> = [];
    await waitFor(async () => {
      messages = await readStream(server.url, "SDS");
      return messages.filter((message) => message.msgId?.startsWith("outcome-")).length === 3;
    }, 20_000);
    const outcomes = messages.filter((message) => message.msgId?.startsWith("outcome-"));
    expect(outcomes.map((message) => [message.subject, message.msgId])).toEqual([
      ["sds.outcomes.complete", "outcome-1"],
      ["sds.outcomes.terminate", "outcome-2"],
      ["sds.outcomes.complete", "outcome-3"],
    ]);
    expect(outcomes[0]?.body).toMatchObject({
      sequence: 1,
      token: "tok-1",
      surveyId: 9101,
      uid: "uid-tok-1",
      Cpi: "2.50",
    });
    expect(outcomes[1]?.body).toMatchObject({ outcome: "terminate", previousOutcome: "complete", uid: "uid-tok-1" });
    expect(outcomes[2]?.body).toMatchObject({ token: "orphan-1", surveyId: null, uid: null, Cpi: null });
    const feed = await readOutcomeFeed(harness);
    const { uid: _uid, Cpi: _cpi, ...record } = outcomes[0]?.body ?? {};
    expect(record).toEqual(feed[0]);
    const change = messages.find((message) => message.msgId === "change-1");
    expect(change?.subject).toBe("sds.changes.opened");
    expect(change?.body).toMatchObject({ sequence: 1, type: "opened", surveyId: 9101 });
    // The durable consumer of the docs credits the complete and takes it back on the reversal.
    const ledger = spawn(process.execPath, [ledgerExample, server.url], { stdio: ["ignore", "pipe", "pipe"] });
    cleanups.push(async () => {
      ledger.kill("SIGTERM");
      await once(ledger, "exit");
    });
    let printed = "";
    ledger.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
    ledger.stderr.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
    await waitFor(() => printed.includes("debit"), 20_000);
    expect(printed).toContain("credit uid-tok-1 +250 (outcome 1) balance 250");
    expect(printed).toContain("debit uid-tok-1 -250 (reversal 2: terminate) balance 0");
  });

  it.skipIf(!pgAvailable)(
    "publishes nothing twice when the old leader loses its lock mid-flood and both relays overlap for a moment",
    async () => {
      const server = await nats();
      const schema = freshSchemaName("sds_sync_events_lock");
      cleanups.push(() => dropSchema(schema));
      const database = { kind: "postgres", connectionString: testDatabaseUrl, schema } as const;
      const config = { natsUrl: new URL(server.url) };
      const first = await service({ database, config, replicaId: "first", followerPollMs: 100 });
      const second = await service({ api: first.api, database, config, replicaId: "second", followerPollMs: 100 });
      const stopSending = new AbortController();
      // Both replicas receive outcomes, as behind a load balancer; neither stops.
      let turn = 0;
      const sending = sendOutcomesUntil(
        () => ((turn += 1) % 2 === 0 ? first : second).service.outcomesUrl,
        stopSending.signal,
        { concurrency: 4, pauseMs: 2, tokenPrefix: "lock" },
      );
      await waitFor(async () => (await readStream(server.url, "SDS")).length > 200, 30_000);
      // The leader's lock session dies (a network cut): another replica may take the lock while the
      // old leader's relay is still publishing its batch. Until the second replica leads.
      for (let attempt = 0; !second.service.store.leadership.isLeader; attempt++) {
        expect(attempt, "the second replica never took the lock").toBeLessThan(20);
        await terminateLockSession(schema);
        await waitFor(
          () => first.service.store.leadership.isLeader || second.service.store.leadership.isLeader,
          15_000,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      stopSending.abort();
      await sending;
      const { ids, sequences } = await outcomesDelivered(server, second);
      expect(expectExactlyOnceInOrder(ids, sequences, "outcome"), "repeats JetStream kept").toBe(0);
    },
    120_000,
  );
});

/** Terminates the PostgreSQL session holding the schema's leadership lock (as a cut connection would). */
async function terminateLockSession(schema: string): Promise<void> {
  const key = advisoryLockKey(schema);
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2",
      [key.classId, key.objectId],
    );
  } finally {
    await client.end();
  }
}
