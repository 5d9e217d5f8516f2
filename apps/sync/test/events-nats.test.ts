import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { advisoryLockKey } from "../src/database/advisory-lock.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { issueEntryLink, readOutcomeFeed, receiveOutcome } from "./loop-traffic.ts";
import { expectExactlyOnceInOrder, floodOutcomes, sendOutcomesUntil } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { natsServerBinary, readStream, startNatsServer, type TestNatsServer } from "./nats-server.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Events out to NATS JetStream, against a nats-server each test starts on a free port with its
 * own store: every outcome sds-sync acknowledged arrives once (JetStream drops repeats by
 * Nats-Msg-Id) and in sequence order, through an outage of NATS and a change of leader.
 */

const pgAvailable = await postgresAvailable();
const ledgerExample = fileURLToPath(new URL("../examples/ledger-consumer.ts", import.meta.url));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function nats(): Promise<TestNatsServer> {
  const server = await startNatsServer();
  cleanups.push(() => server.close());
  return server;
}

async function service(options: Parameters<typeof startServiceHarness>[0]): Promise<ServiceHarness> {
  const harness = await startServiceHarness(options);
  cleanups.push(() => harness.close());
  return harness;
}

/** The outcome ids in the stream, and the outcomes the feed holds, once the stream has them all. */
async function outcomesDelivered(server: TestNatsServer, harness: ServiceHarness) {
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

  it("keeps /readyz 200 with a warning naming the sink while NATS is stopped for 10 s, then catches up: each outcome once, in order", async () => {
    const server = await nats();
    const harness = await service({ config: { natsUrl: new URL(server.url) } });
    const stopSending = new AbortController();
    const sending = sendOutcomesUntil(() => harness.service.outcomesUrl, stopSending.signal, {
      // A steady flow (not a flood): about 40 outcomes a second, hundreds held back by the outage.
      concurrency: 2,
      pauseMs: 40,
      tokenPrefix: "outage",
    });
    await waitFor(async () => (await readStream(server.url, "SDS")).length > 50, 20_000);
    await server.stop();
    const stoppedAt = Date.now();
    await waitFor(async () => {
      const response = await harness.request("/readyz");
      const body = (await response.json()) as { warnings?: string[] };
      return response.status === 200 && (body.warnings ?? []).some((warning) => warning.startsWith("events: nats is"));
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
