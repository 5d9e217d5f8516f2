import { describe, expect, it } from "vitest";
import { expectExactlyOnceInOrder, floodOutcomes } from "./event-delivery.ts";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { issueEntryLink, receiveOutcome } from "./loop-traffic.ts";
import { outcomesAcknowledged, webhookConfig, webhookTestKit } from "./webhook-events.ts";

/*
 * Events out to signed webhooks: one POST per event, signed the Standard Webhooks way, in
 * sequence order per endpoint and feed; a failure, a timeout or an outage holds the later events
 * back and is retried, so a consumer that drops repeats by webhook-id acts on each outcome once.
 * The outage and the leader change have files of their own (events-webhooks-outage,
 * events-webhooks-leader): each runs for tens of seconds, beside the others.
 */

const { receiver, service } = webhookTestKit();

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
