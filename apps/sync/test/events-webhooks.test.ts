import { afterEach, describe, expect, it } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { parseWebhookEndpoints } from "../src/events/event-settings.ts";
import { expectExactlyOnceInOrder, floodOutcomes, sendOutcomesUntil } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { issueEntryLink, readOutcomeFeed, receiveOutcome } from "./loop-traffic.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import {
  hostileAnswers,
  hostilityMet,
  startWebhookReceiver,
  TEST_WEBHOOK_SECRET,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from "./webhook-receiver.ts";

/*
 * Events out to signed webhooks: one POST per event, signed the Standard Webhooks way, in
 * sequence order per endpoint and feed; a failure, a timeout or an outage holds the later events
 * back and is retried, so a consumer that drops repeats by webhook-id acts on each outcome once.
 */

const pgAvailable = await postgresAvailable();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(options?: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(options);
  cleanups.push(() => started.close());
  return started;
}

function webhookConfig(url: string, extra: Partial<SyncConfig> = {}, spec = `ledger=${url}`): Partial<SyncConfig> {
  return {
    webhookEndpoints: parseWebhookEndpoints(spec),
    webhookSecret: TEST_WEBHOOK_SECRET,
    webhookAllowPrivate: true,
    webhookTimeoutMs: 300,
    ...extra,
  };
}

async function service(options: Parameters<typeof startServiceHarness>[0]): Promise<ServiceHarness> {
  const harness = await startServiceHarness(options);
  cleanups.push(() => harness.close());
  return harness;
}

/** Waits until the receiver acknowledged every outcome of the feed; returns the ids and the feed's sequences. */
async function outcomesAcknowledged(target: WebhookReceiver, harness: ServiceHarness) {
  const sequences = (await readOutcomeFeed(harness)).map((record) => record.sequence);
  const outcomeIds = () => target.acknowledgedIds().filter((id) => id.startsWith("outcome-"));
  await waitFor(() => new Set(outcomeIds()).size >= sequences.length, 120_000);
  return { ids: outcomeIds(), sequences };
}

describe("events out to webhooks", () => {
  it("POSTs each event signed the Standard Webhooks way, body {type, timestamp, data}, only the subjects an endpoint asks for", async () => {
    const all = await receiver();
    const outcomesOnly = await receiver();
    const harness = await service({
      api: loopFake([loopSurvey(9101, { Cpi: "2.50" })]),
      config: webhookConfig(all.url, {}, `all=${all.url},ledger=${outcomesOnly.url}|outcomes.>`),
    });
    await issueEntryLink(harness, 9101, "tok-1");
    await receiveOutcome(harness, "complete", "tok-1");
    await receiveOutcome(harness, "terminate", "tok-1");
    await waitFor(() => outcomesOnly.received.length === 2 && all.received.length >= 3, 20_000);
    expect(outcomesOnly.received.map((entry) => [entry.id, entry.type, entry.verified])).toEqual([
      ["outcome-1", "outcomes.complete", true],
      ["outcome-2", "outcomes.terminate", true],
    ]);
    const [complete, reversal] = outcomesOnly.received;
    expect(complete?.body.data).toMatchObject({ sequence: 1, token: "tok-1", uid: "uid-tok-1", Cpi: "2.50" });
    expect(complete?.body.timestamp).toBe(complete?.body.data.receivedAt);
    expect(reversal?.body.data).toMatchObject({ outcome: "terminate", previousOutcome: "complete" });
    expect(all.received.find((entry) => entry.id === "change-1")).toMatchObject({
      type: "changes.opened",
      verified: true,
    });
  });

  it("delivers each outcome once and in order to a receiver that fails, times out and answers slowly", async () => {
    // First attempts: every 4th event refused with 500, every 5th never answered, the rest slow.
    const target = await receiver({
      answer: (id, attempt) => {
        const sequence = Number(id.split("-")[1]);
        if (attempt === 1 && sequence % 4 === 0) return { status: 500 };
        if (attempt === 1 && sequence % 5 === 0) return "hang";
        return { status: 200, delayMs: 20 + (sequence % 3) * 40 };
      },
    });
    const harness = await service({ config: webhookConfig(target.url, {}, `ledger=${target.url}|outcomes.>`) });
    await floodOutcomes(() => harness.service.outcomesUrl, 30, 3, "flaky");
    const { ids, sequences } = await outcomesAcknowledged(target, harness);
    expect(sequences).toHaveLength(30);
    expectExactlyOnceInOrder(ids, sequences, "outcome");
    // Each refused or unanswered event was retried with the same webhook-id, and nothing after it went first.
    const attempts = target.received.map((entry) => entry.id);
    expect(attempts.filter((id) => id === "outcome-4")).toHaveLength(2);
    expect(attempts.filter((id) => id === "outcome-5")).toHaveLength(2);
    expect(attempts.indexOf("outcome-5")).toBeGreaterThan(attempts.lastIndexOf("outcome-4"));
    expect(target.received.every((entry) => entry.verified)).toBe(true);
  }, 60_000);

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

  it("shows an endpoint that is behind in the status page's health band, as served", async () => {
    const target = await receiver();
    await target.pause();
    const harness = await service({ config: webhookConfig(target.url) });
    await receiveOutcome(harness, "complete", "band-1");
    let page = "";
    await waitFor(async () => {
      page = await (await harness.request("/")).text();
      return page.includes("events: webhook:ledger is");
    }, 20_000);
    expect(page).toContain('<header id="health" class="state-warn">');
    expect(page).toMatch(/<li>events: webhook:ledger is \d+ outcomes \(\d+ s\) behind; last error: [^<]+<\/li>/);
  });

  it("names an endpoint given as a plain URL after its host, in GET /v1/events and for its resume route", async () => {
    const target = await receiver();
    const harness = await service({ config: webhookConfig(target.url, {}, `${target.url}|outcomes.>`) });
    await receiveOutcome(harness, "complete", "plain-1");
    await waitFor(() => target.acknowledgedIds().includes("outcome-1"), 20_000);
    const status = (await (await harness.request("/v1/events")).json()) as { sinks: { sink: string; feed: string }[] };
    expect(status.sinks.map((entry) => entry.sink)).toContain("webhook:127.0.0.1");
    const resumed = await harness.request("/v1/webhooks/127.0.0.1/resume", { method: "POST" });
    expect(resumed.status).toBe(202);
    expect(await resumed.json()).toEqual({ webhook: "127.0.0.1", resumed: true });
  });
});
