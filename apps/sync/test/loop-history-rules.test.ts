import type { FakeSupplierApi } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { postJson } from "./loop-traffic.ts";
import { storeCases } from "./store-cases.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The respondent rules against a long or hostile history, over HTTP on both stores (issue 32,
 * "History and rules"): rules that read the whole history (not its latest 1,000 entries), entry
 * times that cannot be in the future or before 2000, one token namespace for imports and links,
 * a retry's link that stays the link issued, and history imports that never deadlock.
 */

const [A, D, E] = [9301, 9302, 9303] as const;
const inventory = [loopSurvey(A, { Cpi: "4.00" }), loopSurvey(D, { Cpi: "2.00" }), loopSurvey(E, { Cpi: "3.00" })];
const DAY_MS = 86_400_000;

const { stores, usable } = storeCases("sds_sync_rules");

interface ErrorAnswer {
  error: { code: string; message: string };
}

describe.each(stores)("respondent rules against a long or hostile history on $name", (store) => {
  const harnesses: ServiceHarness[] = [];
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
    await api?.close();
    api = undefined;
  });

  async function start(database = store.database(), config: Record<string, unknown> = {}): Promise<ServiceHarness> {
    api ??= loopFake(inventory);
    const harness = await startServiceHarness({
      api,
      config: { maxClosureShare: 1, ...config },
      ...(database ? { database } : {}),
    });
    harnesses.push(harness);
    // The matcher follows the start-up cycle: wait until it holds every survey.
    await waitFor(async () => (await matchIds(harness, "nobody-yet")).length === inventory.length, 20_000);
    return harness;
  }
  const matchIds = async (harness: ServiceHarness, uid: string) =>
    (
      (await (await postJson(harness, "/v1/match", { answers: {}, uid })).json()) as { surveys: { SurveyId: number }[] }
    ).surveys.map((survey) => survey.SurveyId);
  const importHistory = async (harness: ServiceHarness, entries: readonly Record<string, unknown>[]) => {
    const response = await postJson(harness, "/v1/respondents/history", { entries });
    return { status: response.status, body: (await response.json()) as { imported: number; skipped: number } };
  };
  /** `count` entries of `uid` into surveys that are not live, the newest `newestAgoMs` before now, a minute apart. */
  const elsewhere = (uid: string, count: number, newestAgoMs: number, firstSurvey = 500_000) =>
    Array.from({ length: count }, (_, index) => ({
      uid,
      surveyId: firstSurvey + index,
      enteredAt: new Date(Date.now() - newestAgoMs - index * 60_000).toISOString(),
      outcome: "terminate",
    }));
  const link = (harness: ServiceHarness, surveyId: number, token: string, uid: string) =>
    postJson(harness, "/v1/entry-links", { surveyId, token, uid });

  it("decides every rule over the whole history: an entry 30 days ago behind 1,000 newer ones, match agreeing with entry links past 200 entries, a daily cap of 1,200", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start(store.database(), { maxEntriesPerDay: 1200 });
    // An entry into A 30 days ago, then 1,000 newer entries elsewhere (none in the last 24 hours).
    const veteran = [{ uid: "veteran", surveyId: A, enteredAt: new Date(Date.now() - 30 * DAY_MS).toISOString() }];
    expect((await importHistory(service, veteran)).body.imported).toBe(1);
    expect((await importHistory(service, elsewhere("veteran", 1000, 2 * DAY_MS))).body.imported).toBe(1000);
    expect(await matchIds(service, "veteran")).toEqual([E, D]);
    const refused = await link(service, A, "veteran-a", "veteran");
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as ErrorAnswer).error.code).toBe("respondent_excluded");

    // 251 entries: /v1/match read 200 of them and listed A, which the entry link then refused.
    expect((await importHistory(service, [{ ...veteran[0], uid: "regular" }])).body.imported).toBe(1);
    expect((await importHistory(service, elsewhere("regular", 250, 2 * DAY_MS))).body.imported).toBe(250);
    expect(await matchIds(service, "regular")).toEqual([E, D]);
    expect((await link(service, A, "regular-a", "regular")).status).toBe(409);
    expect((await link(service, D, "regular-d", "regular")).status).toBe(201);

    // 1,200 entries in the last 24 hours reach the cap: no survey, no link.
    expect((await importHistory(service, elsewhere("busy", 1000, 60_000))).body.imported).toBe(1000);
    expect((await importHistory(service, elsewhere("busy", 199, 60_000, 600_000))).body.imported).toBe(199);
    expect(await matchIds(service, "busy")).toEqual([A, E, D]);
    expect((await link(service, D, "busy-d", "busy")).status).toBe(201);
    expect(await matchIds(service, "busy")).toEqual([]);
    const capped = await link(service, E, "busy-e", "busy");
    expect(capped.status).toBe(409);
    expect(((await capped.json()) as ErrorAnswer).error.message).toMatch(/respondent-cap/);
  });

  it("refuses entry times in the future beyond the clock-skew allowance and before 2000, with 400", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    const at = (enteredAt: string) => [{ uid: "timely", surveyId: A, enteredAt }];
    for (const enteredAt of [
      "9999-12-31T00:00:00Z",
      "0000-06-01T00:00:00Z",
      "1999-12-31T23:59:59Z",
      new Date(Date.now() + 10 * 60_000).toISOString(),
    ]) {
      const answer = await importHistory(service, at(enteredAt));
      expect(answer.status, enteredAt).toBe(400);
    }
    expect(await matchIds(service, "timely")).toEqual([A, E, D]);
    // Within the allowance (a clock a minute ahead) and from 2000 on: taken.
    expect((await importHistory(service, at(new Date(Date.now() + 60_000).toISOString()))).status).toBe(200);
    expect((await importHistory(service, at("2000-01-01T00:00:00Z"))).status).toBe(200);
  });

  it("moves the status report with every entry link, whatever the entry times imported", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    const entries = async () =>
      (
        (await (await service.request("/v1/sync/status")).json()) as {
          loop: { totals: { lifetime: { entries: number } } };
        }
      ).loop.totals.lifetime.entries;
    // An imported entry a few minutes ahead (a clock within the allowance) was the newest entry time: the report's version stood still.
    const ahead = [{ uid: "ahead", surveyId: D, enteredAt: new Date(Date.now() + 4 * 60_000).toISOString() }];
    expect((await importHistory(service, ahead)).status).toBe(200);
    expect(await entries()).toBe(0);
    expect((await link(service, A, "after-ahead", "someone")).status).toBe(201);
    expect(await entries()).toBe(1);
    expect((await link(service, A, "after-ahead-2", "someone-else")).status).toBe(201);
    expect(await entries()).toBe(2);
  });

  it("keeps imported entries and entry links apart: the import's tokens are refused as links, and a link never hides an imported entry", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    const enteredAt = new Date(Date.now() - DAY_MS);
    expect(
      (await importHistory(service, [{ uid: "victim", surveyId: A, enteredAt: enteredAt.toISOString() }])).body,
    ).toEqual({ imported: 1, skipped: 0 });
    // The import's own token as a link: it answered 200 with a working link into the survey already entered.
    const forged = await link(service, A, `history:${A}:${enteredAt.getTime()}:victim`, "victim");
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as ErrorAnswer).error.message).toMatch(/history:/);

    // A link holding the token an import would use made the import skip the real entry.
    const later = new Date(Date.now() - 2 * DAY_MS);
    const squatter = await link(service, D, `history:${E}:${later.getTime()}:victim-2`, "victim-2");
    expect(squatter.status).toBe(400);
    expect(
      (await importHistory(service, [{ uid: "victim-2", surveyId: E, enteredAt: later.toISOString() }])).body,
    ).toEqual({ imported: 1, skipped: 0 });
    expect(await matchIds(service, "victim-2")).toEqual([A, D]);
  });

  it("answers a retry with the link it issued while the survey is live, and survey_closed once it closed", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    const issued = await link(service, E, "retry-me", "returning");
    expect(issued.status).toBe(201);
    const { link: original } = (await issued.json()) as { link: string };
    expect(original).toContain("survey.example.com");

    service.api.updateSurvey(E, { SurveyUrl: `https://moved.example.com/s/${E}?rid=[%RID%]` });
    // Once the matcher holds the new SurveyUrl, a new token gets it.
    let probe = 0;
    await waitFor(async () => {
      await postJson(service, "/v1/sync/run", {});
      const fresh = await link(service, E, `probe-${probe}`, `probe-${probe++}`);
      return ((await fresh.json()) as { link: string }).link.includes("moved.example.com");
    }, 20_000);
    const retried = await link(service, E, "retry-me", "returning");
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { link: string }).link).toBe(original);

    service.api.closeSurvey(E);
    await waitFor(async () => {
      await postJson(service, "/v1/sync/run", {});
      return (await link(service, E, `after-close-${probe}`, `late-comer-${probe++}`)).status === 404;
    }, 20_000);
    const closed = await link(service, E, "retry-me", "returning");
    expect(closed.status).toBe(410);
    expect(((await closed.json()) as ErrorAnswer).error.code).toBe("survey_closed");
  });

  it("imports the same entries concurrently in different orders on every replica without a deadlock", async (context) => {
    if (!usable(store)) context.skip();
    const database = store.database();
    const first = await start(database);
    // A second replica on the same PostgreSQL schema (SQLite has one process per file: one replica).
    const second = database?.kind === "postgres" ? await start(database) : first;
    for (let round = 0; round < 3; round += 1) {
      const entries = Array.from({ length: 1000 }, (_, index) => ({
        uid: `crowd-${round}-${index % 50}`,
        surveyId: 700_000 + index,
        enteredAt: new Date(Date.now() - DAY_MS - index * 1000).toISOString(),
      }));
      // Three orders: as listed, reversed, and interleaved from both ends.
      const orders = [
        entries,
        [...entries].reverse(),
        entries.map((_, index) => entries[index % 2 === 0 ? index / 2 : entries.length - (index + 1) / 2]),
      ];
      const answers = await Promise.all(
        orders.map((order, index) =>
          postJson(index === 1 ? second : first, "/v1/respondents/history", { entries: order }),
        ),
      );
      const bodies = await Promise.all(
        answers.map(async (answer) => ({ status: answer.status, body: await answer.text() })),
      );
      expect(
        bodies.map((answer) => answer.status),
        JSON.stringify(bodies),
      ).toEqual([200, 200, 200]);
      const imported = bodies.map((answer) => (JSON.parse(answer.body) as { imported: number }).imported);
      expect(imported.reduce((sum, value) => sum + value, 0)).toBe(1000);
      // The recount: importing the same entries again finds every one of them.
      expect((await importHistory(first, entries)).body).toEqual({ imported: 0, skipped: 1000 });
    }
  });
});
