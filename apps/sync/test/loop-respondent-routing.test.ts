import { DEFAULT_SUPPLIER_ID, RECONTACT_STUDY_TYPE_ID, type FakeSupplierApi, type SurveyInit } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { storeCases } from "./store-cases.ts";
import { postJson } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Respondent-aware routing over HTTP on both stores: survey groups and re-contact lists read
 * from the (fake) upstream, a respondent's history (issued and imported entries) keeping them
 * out of surveys the buyer would reject, in /v1/match, its explain, and /v1/entry-links (409,
 * atomically, also across two PostgreSQL replicas).
 */

const GROUP = 7100;
const [A, B, C, D] = [9101, 9102, 9103, 9104] as const;
const open = (id: number, cpi: string, extra: Partial<NonNullable<SurveyInit["survey"]>> = {}): SurveyInit =>
  loopSurvey(id, { Cpi: cpi, ...extra });
const inventory = [
  open(A, "4.00", { Has_Survey_Groups: true }),
  open(B, "3.00", { Has_Survey_Groups: true }),
  open(C, "9.00", { StudyTypeId: RECONTACT_STUDY_TYPE_ID }),
  open(D, "1.00"),
];

const { stores, usable } = storeCases("sds_sync_respondents");

interface MatchAnswer {
  surveys: { SurveyId: number }[];
  explanation?: {
    eligible: boolean;
    reasons: { kind: string; groupId?: number; surveyId?: number; enteredAt?: string; message: string }[];
  };
}

describe.each(stores)("respondent-aware routing over HTTP on $name", (store) => {
  const harnesses: ServiceHarness[] = [];
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
    await api?.close();
    api = undefined;
  });

  async function start(database = store.database(), config: Record<string, unknown> = {}): Promise<ServiceHarness> {
    api ??= loopFake(inventory);
    if (harnesses.length === 0) {
      api.addToSurveyGroup(GROUP, A);
      api.addToSurveyGroup(GROUP, B);
      api.replaceRecontactRespondents(C, [{ PID: "vip-1" }, { PID: "vip-2", IsActive: false }]);
    }
    const harness = await startServiceHarness({
      api,
      config: { maxClosureShare: 1, ...config },
      ...(database ? { database } : {}),
    });
    harnesses.push(harness);
    return harness;
  }
  const match = async (harness: ServiceHarness, body: Record<string, unknown>) =>
    (await (await postJson(harness, "/v1/match", { answers: {}, ...body })).json()) as MatchAnswer;
  const ids = (answer: MatchAnswer) => answer.surveys.map((survey) => survey.SurveyId);
  /** Waits until the leader's refresher has read the groups and the re-contact list (a respondent with no history sees neither A nor B blocked, C out). */
  const routingDataRead = (harness: ServiceHarness) =>
    waitFor(async () => {
      const status = (await (await harness.request("/v1/sync/status")).json()) as {
        loop: {
          matcher: { surveys: number };
          inventoryData: { groups: { surveys: number }; recontact: { studies: number } };
        };
      };
      return (
        status.loop.matcher.surveys >= 4 &&
        status.loop.inventoryData.groups.surveys >= 2 &&
        status.loop.inventoryData.recontact.studies >= 1
      );
    }, 20_000);

  it("keeps a respondent out of what they entered, the rest of its group and re-contact studies not meant for them; explains each; refuses the link with 409", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    await routingDataRead(service);
    expect(ids(await match(service, { uid: "r1" }))).toEqual([A, B, D]);
    expect(ids(await match(service, { uid: "vip-1" }))).toEqual([C, A, B, D]);
    expect(ids(await match(service, {}))).toEqual([A, B, D]);
    expect(
      (await match(service, { uid: "vip-2", explain: C })).explanation?.reasons.map((reason) => reason.kind),
    ).toEqual(["recontact"]);

    expect((await postJson(service, "/v1/entry-links", { surveyId: A, token: "r1-a", uid: "r1" })).status).toBe(201);
    expect(ids(await match(service, { uid: "r1" }))).toEqual([D]);
    const explainedB = await match(service, { uid: "r1", explain: B });
    expect(explainedB.explanation?.reasons).toContainEqual(
      expect.objectContaining({ kind: "survey-group", groupId: GROUP, surveyId: A }),
    );
    expect(new Set(explainedB.explanation?.reasons.map((reason) => reason.kind))).toEqual(new Set(["survey-group"]));
    expect((await match(service, { uid: "r1", explain: A })).explanation?.reasons.map((reason) => reason.kind)).toEqual(
      ["already-entered"],
    );

    const refused = await postJson(service, "/v1/entry-links", { surveyId: B, token: "r1-b", uid: "r1" });
    expect(refused.status).toBe(409);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("respondent_excluded");
    expect(error.message).toMatch(/survey-group/);
    expect((await postJson(service, "/v1/entry-links", { surveyId: C, token: "anon-c" })).status).toBe(409);
    expect((await postJson(service, "/v1/entry-links", { surveyId: C, token: "vip-c", uid: "vip-1" })).status).toBe(
      201,
    );
    // The same token again is the same entry (200), not a second entry refused by the rules.
    expect((await postJson(service, "/v1/entry-links", { surveyId: A, token: "r1-a", uid: "r1" })).status).toBe(200);
  });

  it("takes a history imported from elsewhere into account, once", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    await routingDataRead(service);
    const batch = {
      entries: [{ uid: "imported-1", surveyId: B, enteredAt: "2026-01-05T10:00:00Z", outcome: "complete" }],
    };
    expect(await (await postJson(service, "/v1/respondents/history", batch)).json()).toEqual({
      imported: 1,
      skipped: 0,
    });
    expect(await (await postJson(service, "/v1/respondents/history", batch)).json()).toEqual({
      imported: 0,
      skipped: 1,
    });
    expect(ids(await match(service, { uid: "imported-1" }))).toEqual([D]);
    // Times in explain are ISO 8601, like every other time of the API.
    expect((await match(service, { uid: "imported-1", explain: B })).explanation?.reasons).toContainEqual(
      expect.objectContaining({ kind: "already-entered", enteredAt: "2026-01-05T10:00:00.000Z" }),
    );
    // A full batch (1,000 entries, long ids: about 150 KB of JSON) fits the batch routes' body limit.
    const full = {
      entries: Array.from({ length: 1000 }, (_, index) => ({
        uid: `respondent-${String(index).padStart(80, "0")}`,
        surveyId: D,
        enteredAt: "2026-01-05T10:00:00Z",
      })),
    };
    expect(await (await postJson(service, "/v1/respondents/history", full)).json()).toEqual({
      imported: 1000,
      skipped: 0,
    });
    for (const bad of [
      { entries: [] },
      { entries: [{ uid: "", surveyId: B, enteredAt: "2026-01-05T10:00:00Z" }] },
      { entries: [{ uid: "x", surveyId: B, enteredAt: "yesterday" }] },
    ]) {
      expect((await postJson(service, "/v1/respondents/history", bad)).status, JSON.stringify(bad)).toBe(400);
    }
  });

  it("frees the group's other surveys when a survey leaves the group", async (context) => {
    if (!usable(store)) context.skip();
    // Nothing upstream says when groups change: they are fetched again once older than SYNC_GROUPS_REFRESH_SECONDS (1 s here).
    const service = await start(store.database(), { groupsRefreshSeconds: 1 });
    await routingDataRead(service);
    expect((await postJson(service, "/v1/entry-links", { surveyId: A, token: "leaver", uid: "r9" })).status).toBe(201);
    expect(ids(await match(service, { uid: "r9" }))).toEqual([D]);
    // A leaves every group it was in (the fake puts surveys with groups in groups of its own too).
    for (const group of service.api.listSurveyGroups(DEFAULT_SUPPLIER_ID))
      if (group.SurveyGroupSurveys.includes(A)) service.api.removeFromSurveyGroup(group.SurveyGroupID, A);
    // Each cycle of the leader refreshes what is due (A's groups once older than a second).
    await waitFor(async () => {
      await postJson(service, "/v1/sync/run", {});
      return ids(await match(service, { uid: "r9" })).join() === [B, D].join();
    }, 20_000);
  });

  it("keeps a new grouped survey out until its groups are read, and says why", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    await routingDataRead(service);
    expect((await postJson(service, "/v1/entry-links", { surveyId: A, token: "before-e", uid: "r5" })).status).toBe(
      201,
    );
    // A new survey of A's group; its groups come slowly, so the cycle that brings it ends long before they are read.
    const E = 9105;
    service.api.addSurvey(DEFAULT_SUPPLIER_ID, open(E, "8.00", { Has_Survey_Groups: true }));
    service.api.addToSurveyGroup(GROUP, E);
    service.api.faults.add({ kind: "latency", ms: 1500, operation: "getSurveyGroups" });
    expect((await postJson(service, "/v1/sync/run", {})).status).toBe(200);
    // The matcher follows the store: wait until it holds E (live), not yet its groups.
    await waitFor(
      async () =>
        !(await match(service, { uid: "someone", explain: E })).explanation?.reasons.some(
          (reason) => reason.kind === "not-live",
        ),
      5000,
    );
    const waiting = await match(service, { uid: "r5", explain: E });
    expect(waiting.explanation?.reasons.map((reason) => reason.kind)).toEqual(["unusable-survey-url"]);
    expect(waiting.explanation?.reasons[0]?.message).toMatch(/survey groups have not been read yet/);
    expect(ids(await match(service, { uid: "r5" }))).not.toContain(E);
    const tooSoon = await postJson(service, "/v1/entry-links", { surveyId: E, token: "too-soon", uid: "r5" });
    expect(tooSoon.status).toBe(409);
    expect(tooSoon.headers.get("retry-after")).toBe("10");
    expect(((await tooSoon.json()) as { error: { code: string } }).error.code).toBe("survey_unroutable");
    const anonymous = await postJson(service, "/v1/entry-links", { surveyId: E, token: "too-soon-anonymous" });
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("survey_unroutable");
    const status = (await (await service.request("/v1/sync/status")).json()) as {
      loop: { inventoryData: { groups: { pending: number } } };
    };
    expect(status.loop.inventoryData.groups.pending).toBe(1);
    // Once read: E is open to others, and out for r5 because of the group.
    await waitFor(async () => ids(await match(service, { uid: "someone-else" })).includes(E), 20_000);
    expect((await match(service, { uid: "r5", explain: E })).explanation?.reasons.map((reason) => reason.kind)).toEqual(
      ["survey-group"],
    );
  });

  it("gives at most one link of concurrent requests of one respondent into two surveys of a group, on every replica of the store", async (context) => {
    if (!usable(store)) context.skip();
    const database = store.database();
    const first = await start(database);
    await routingDataRead(first);
    // A second replica on the same PostgreSQL schema (SQLite has one process per file: one replica).
    const second = database?.kind === "postgres" ? await start(database) : first;
    if (second !== first) await routingDataRead(second);
    const race = async (uid: string) => {
      const attempts = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          postJson(index % 2 === 0 ? first : second, "/v1/entry-links", {
            surveyId: index % 4 < 2 ? A : B,
            token: `race-${uid}-${index}`,
            uid,
          }),
        ),
      );
      return attempts.map((response) => response.status);
    };
    // A respondent never seen before: the first insert of their row is what the others wait on.
    const newcomer = await race("racer");
    expect(newcomer.filter((status) => status === 201)).toHaveLength(1);
    expect(newcomer.filter((status) => status === 409)).toHaveLength(11);
    // A respondent already known (an entry elsewhere): only the lock on their existing row keeps the race to one link.
    expect(
      (await postJson(first, "/v1/entry-links", { surveyId: D, token: "known-d", uid: "known-racer" })).status,
    ).toBe(201);
    for (let round = 0; round < 5; round += 1) {
      const uid = `known-racer${round === 0 ? "" : `-${round}`}`;
      if (round > 0)
        expect(
          (await postJson(second, "/v1/entry-links", { surveyId: D, token: `known-d-${round}`, uid })).status,
        ).toBe(201);
      const known = await race(uid);
      expect(
        known.filter((status) => status === 201),
        `round ${round}: ${known.join(" ")}`,
      ).toHaveLength(1);
      expect(known.filter((status) => status === 409)).toHaveLength(11);
    }
  });
});
