import { parseRecontactRespondents, parseSurveyGroups, parseSurveyStats, type ParsedSurveyGroup } from "@sds/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpCaller, inProcessCaller, manualClock, type Caller } from "../../test/http.ts";
import { createFakeSupplierApi, RECONTACT_STUDY_TYPE_ID, type FakeSupplierApi } from "../index.ts";

/*
 * Survey groups, re-contact lists and stats: served over real HTTP as a sync service reads
 * them, changed through the control methods and the /__sandbox routes.
 */

const ALICE = { supplierId: 1001, apiKey: "alice-key" };
const BOB = { supplierId: 2002, apiKey: "bob-key" };

function createApi(seed = 3): FakeSupplierApi {
  return createFakeSupplierApi({
    seed,
    control: true,
    now: manualClock().now,
    suppliers: [
      { ...ALICE, surveys: 150, closedSurveys: 10 },
      { ...BOB, surveys: 20 },
    ],
  });
}

async function groupsOf(call: Caller, surveyId: number): Promise<readonly ParsedSurveyGroup[]> {
  const result = parseSurveyGroups((await call(`/survey-groups/${surveyId}`)).json);
  if (!result.ok) throw new Error(result.problem);
  return result.groups;
}

describe("survey groups, re-contact lists and stats of the fake", () => {
  let api: FakeSupplierApi;
  let call: Caller;

  beforeEach(async () => {
    api = createApi();
    call = await httpCaller(api, ALICE.apiKey);
  });
  afterEach(async () => {
    await api.close();
  });

  it("serves groups exactly to the surveys with Has_Survey_Groups, the same group from each of its surveys", async () => {
    const surveys = api.listSurveys(ALICE.supplierId, "all");
    const seen = new Map<number, string>();
    let grouped = 0;
    for (const survey of surveys) {
      const body = (await call(`/survey-groups/${survey.SurveyId}`)).json;
      expect(body).toMatchObject({ hasError: false, SurveyId: survey.SurveyId });
      expect(
        Object.keys((body.SurveyGroups as object[])[0] ?? { SurveyGroupID: 0, SurveyGroupSurveys: [] }).sort(),
      ).toEqual(["SurveyGroupID", "SurveyGroupSurveys"]);
      const groups = await groupsOf(call, survey.SurveyId);
      expect(groups.length > 0, String(survey.SurveyId)).toBe(survey.Has_Survey_Groups);
      if (groups.length > 0) grouped++;
      for (const group of groups) {
        expect(group.surveyIds).toContain(survey.SurveyId);
        const members = JSON.stringify(group.surveyIds);
        expect(seen.get(group.groupId) ?? members, `group ${group.groupId}`).toBe(members);
        seen.set(group.groupId, members);
      }
    }
    expect(grouped).toBeGreaterThan(5);
    expect(grouped).toBeLessThan(surveys.length / 3);
    expect([...seen.values()].some((members) => (JSON.parse(members) as number[]).length > 1)).toBe(true);
  });

  it("lists a Recontact study type, and serves the lists of its surveys with active and inactive PIDs and an empty list to others", async () => {
    const studyTypes = (await call("/collection/studytypes")).json.StudyTypes as { Id: number; Name: string }[];
    expect(studyTypes).toContainEqual({ Id: RECONTACT_STUDY_TYPE_ID, Name: "Recontact" });
    const surveys = api.listSurveys(ALICE.supplierId, "all");
    const recontactSurveys = surveys.filter((survey) => survey.StudyTypeId === RECONTACT_STUDY_TYPE_ID);
    expect(recontactSurveys.length).toBeGreaterThan(0);
    let inactive = 0;
    for (const survey of recontactSurveys) {
      const body = (await call(`/recontact-respondents/${survey.SurveyId}`)).json;
      expect((body.Respondents as object[])[0]).toEqual({
        PID: expect.any(String) as string,
        IsActive: expect.any(Boolean) as boolean,
      });
      const result = parseRecontactRespondents(body);
      if (!result.ok) throw new Error(result.problem);
      expect(result.respondents.length).toBeGreaterThanOrEqual(3);
      inactive += result.respondents.filter((respondent) => !respondent.active).length;
    }
    expect(inactive).toBeGreaterThan(0);
    const other = surveys.find((survey) => survey.StudyTypeId !== RECONTACT_STUDY_TYPE_ID);
    const answer = await call(`/recontact-respondents/${other?.SurveyId ?? 0}`);
    expect(answer.status).toBe(200);
    expect(parseRecontactRespondents(answer.json)).toEqual({ ok: true, respondents: [] });
  });

  it("serves stats by Global and Supplier scope, read as the supplier's where it has traffic", async () => {
    const scopes = new Set<string>();
    for (const survey of api.listSurveys(ALICE.supplierId).slice(0, 60)) {
      const body = (await call(`/survey-stats/${survey.SurveyId}`)).json as {
        Stats: { Global: { SystemConversion: number }; Supplier?: object };
      };
      expect(body.Stats.Global.SystemConversion).toBeGreaterThanOrEqual(0);
      expect(body.Stats.Global.SystemConversion).toBeLessThanOrEqual(100);
      const result = parseSurveyStats(body);
      if (!result.ok) throw new Error(result.problem);
      expect(result.stats.scope).toBe(body.Stats.Supplier ? "supplier" : "global");
      expect(result.stats.conversion).toBeDefined();
      scopes.add(result.stats.scope);
    }
    expect(scopes.has("supplier")).toBe(true);
  });

  it("serves the same groups, lists and stats for the same seed, and others for another", async () => {
    // In-process (no socket): 1,440 answers over HTTP took over 20 s on a loaded machine; what
    // is compared is the bodies, which the same handler serves either way.
    const bodies = async (fake: FakeSupplierApi): Promise<string[]> => {
      const caller = inProcessCaller(fake, ALICE.apiKey);
      const texts: string[] = [];
      for (const survey of fake.listSurveys(ALICE.supplierId)) {
        for (const path of ["survey-groups", "recontact-respondents", "survey-stats"])
          texts.push((await caller(`/${path}/${survey.SurveyId}`)).text);
      }
      return texts;
    };
    const twin = createApi();
    const other = createApi(4);
    try {
      expect(await bodies(twin)).toEqual(await bodies(api));
      expect(await bodies(other)).not.toEqual(await bodies(api));
    } finally {
      await Promise.all([twin.close(), other.close()]);
    }
  });

  it("moves a survey into and out of a group, every member answering the change, Has_Survey_Groups following", async () => {
    const [first, second] = api.listSurveys(ALICE.supplierId).filter((survey) => !survey.Has_Survey_Groups);
    const [member] = api.listSurveys(ALICE.supplierId).filter((survey) => survey.Has_Survey_Groups);
    if (!first || !second || !member) throw new Error("the seeded fake needs grouped and ungrouped surveys");
    const [group] = await groupsOf(call, member.SurveyId);
    if (!group) throw new Error("a flagged survey has a group");

    const moved = api.addToSurveyGroup(group.groupId, first.SurveyId);
    expect(moved.SurveyGroupSurveys).toEqual([...group.surveyIds, first.SurveyId].sort((left, right) => left - right));
    for (const surveyId of moved.SurveyGroupSurveys)
      expect(await groupsOf(call, surveyId)).toContainEqual({
        groupId: group.groupId,
        surveyIds: moved.SurveyGroupSurveys,
      });
    const flagged = api.getSurvey(first.SurveyId)?.survey;
    expect(flagged?.Has_Survey_Groups).toBe(true);
    expect(Date.parse(flagged?.LastUpdatedOnUTC ?? "")).toBeGreaterThan(Date.parse(first.LastUpdatedOnUTC));

    api.removeFromSurveyGroup(group.groupId, first.SurveyId);
    expect(await groupsOf(call, first.SurveyId)).toEqual([]);
    expect(await groupsOf(call, member.SurveyId)).toContainEqual(group);
    expect(api.getSurvey(first.SurveyId)?.survey.Has_Survey_Groups).toBe(false);

    expect(api.setSurveyGroup(99, [second.SurveyId, first.SurveyId])).toEqual({
      SurveyGroupID: 99,
      SurveyGroupSurveys: [first.SurveyId, second.SurveyId].sort((left, right) => left - right),
    });
    expect(api.getSurvey(second.SurveyId)?.surveyGroups).toEqual([
      api.listSurveyGroups(ALICE.supplierId).find((found) => found.SurveyGroupID === 99),
    ]);
    expect(api.setSurveyGroup(99, [])).toBeUndefined();
    expect(await groupsOf(call, second.SurveyId)).toEqual([]);
  });

  it("refuses a group across suppliers, an unknown group or survey, and a bad group id", () => {
    const alices = api.listSurveys(ALICE.supplierId)[0]?.SurveyId ?? 0;
    const bobs = api.listSurveys(BOB.supplierId)[0]?.SurveyId ?? 0;
    expect(() => api.setSurveyGroup(500, [alices, bobs])).toThrow(/belongs to supplier 2002/);
    expect(() => api.removeFromSurveyGroup(424_242, alices)).toThrow(/no survey group 424242/);
    expect(() => api.addToSurveyGroup(500, 1)).toThrow(/no survey 1/);
    expect(() => api.setSurveyGroup(-1, [alices])).toThrow(RangeError);
    expect(() => api.setSurveyGroup(1.5, [alices])).toThrow(/positive integer/);
  });

  it("drops a removed survey from its groups, groups a new flagged survey, and restores the groups on reset", async () => {
    const before = api.listSurveyGroups(ALICE.supplierId);
    const [group] = before;
    const gone = group?.SurveyGroupSurveys[0] ?? 0;
    api.removeSurvey(gone);
    expect(api.listSurveyGroups(ALICE.supplierId).flatMap((found) => found.SurveyGroupSurveys)).not.toContain(gone);
    const added = api.addSurvey(ALICE.supplierId, { survey: { Has_Survey_Groups: true } });
    expect((await groupsOf(call, added.SurveyId)).map((found) => found.surveyIds)).toEqual([[added.SurveyId]]);
    api.reset();
    expect(api.listSurveyGroups(ALICE.supplierId)).toEqual(before);
  });

  it("replaces a re-contact list, refusing it for another study type and for a repeated or empty PID", async () => {
    const recontact = api
      .listSurveys(ALICE.supplierId, "all")
      .find((survey) => survey.StudyTypeId === RECONTACT_STUDY_TYPE_ID);
    const other = api.listSurveys(ALICE.supplierId).find((survey) => survey.StudyTypeId !== RECONTACT_STUDY_TYPE_ID);
    if (!recontact || !other) throw new Error("the seeded fake needs both kinds of survey");
    expect(
      api.replaceRecontactRespondents(recontact.SurveyId, [{ PID: "p-1" }, { PID: "p-2", IsActive: false }]),
    ).toEqual([
      { PID: "p-1", IsActive: true },
      { PID: "p-2", IsActive: false },
    ]);
    expect(parseRecontactRespondents((await call(`/recontact-respondents/${recontact.SurveyId}`)).json)).toEqual({
      ok: true,
      respondents: [
        { uid: "p-1", active: true },
        { uid: "p-2", active: false },
      ],
    });
    expect(() => api.replaceRecontactRespondents(other.SurveyId, [{ PID: "p-1" }])).toThrow(/no re-contact survey/);
    expect(() => api.replaceRecontactRespondents(recontact.SurveyId, [{ PID: "a" }, { PID: "a" }])).toThrow(
      /repeats PID "a"/,
    );
    expect(() => api.replaceRecontactRespondents(recontact.SurveyId, [{ PID: " " }])).toThrow(RangeError);
    api.updateSurvey(recontact.SurveyId, { StudyTypeId: 1 });
    expect((await call(`/recontact-respondents/${recontact.SurveyId}`)).json.Respondents).toEqual([]);
  });

  it("sets stats as given, refuses impossible ones, and goes back to the generated ones with null", async () => {
    const surveyId = api.listSurveys(ALICE.supplierId)[0]?.SurveyId ?? 0;
    const generated = (await call(`/survey-stats/${surveyId}`)).json.Stats;
    expect(api.setSurveyStats(surveyId, { Global: { SystemConversion: 12.5, EffectiveEPC: 0.4 } })).toEqual({
      Global: { SystemConversion: 12.5, EffectiveEPC: 0.4 },
    });
    expect(parseSurveyStats((await call(`/survey-stats/${surveyId}`)).json)).toEqual({
      ok: true,
      stats: { conversion: 0.125, effectiveEpc: 0.4, scope: "global" },
    });
    api.setSurveyStats(surveyId, {});
    expect(parseSurveyStats((await call(`/survey-stats/${surveyId}`)).json)).toEqual({
      ok: true,
      stats: { scope: "unknown" },
    });
    expect(() => api.setSurveyStats(surveyId, { Supplier: { SystemConversion: 140 } })).toThrow(
      /Supplier.SystemConversion/,
    );
    expect(() => api.setSurveyStats(surveyId, { Supplier: { EffectiveEPC: -1 } })).toThrow(RangeError);
    api.setSurveyStats(surveyId, null);
    expect((await call(`/survey-stats/${surveyId}`)).json.Stats).toEqual(generated);
  });
});

describe("control routes for groups, re-contact lists and stats", () => {
  let api: FakeSupplierApi;
  let call: Caller;

  beforeEach(async () => {
    api = createApi();
    call = await httpCaller(api, ALICE.apiKey);
  });
  afterEach(async () => {
    await api.close();
  });

  it("lists, sets, joins and leaves survey groups", async () => {
    const listed = await call("//__sandbox/suppliers/1001/survey-groups");
    expect(listed.status).toBe(200);
    expect(listed.json.surveyGroups).toEqual(api.listSurveyGroups(ALICE.supplierId));
    const [first, second] = api.listSurveys(ALICE.supplierId).filter((survey) => !survey.Has_Survey_Groups);
    const ids = [first?.SurveyId ?? 0, second?.SurveyId ?? 0];

    const set = await call("//__sandbox/survey-groups/900", { method: "PUT", body: { surveyIds: ids } });
    expect(set.status).toBe(200);
    expect(set.json.surveyGroup).toEqual({ SurveyGroupID: 900, SurveyGroupSurveys: ids });
    expect(await groupsOf(call, ids[1] ?? 0)).toEqual([{ groupId: 900, surveyIds: ids }]);

    const left = await call(`//__sandbox/survey-groups/900/surveys/${ids[0] ?? 0}`, { method: "DELETE" });
    expect(left.json.surveyGroup).toEqual({ SurveyGroupID: 900, SurveyGroupSurveys: [ids[1]] });
    expect(await groupsOf(call, ids[0] ?? 0)).toEqual([]);
    const joined = await call(`//__sandbox/survey-groups/900/surveys/${ids[0] ?? 0}`, { method: "PUT" });
    expect(joined.json.surveyGroup).toEqual({ SurveyGroupID: 900, SurveyGroupSurveys: ids });

    const emptied = await call("//__sandbox/survey-groups/900", { method: "PUT", body: { surveyIds: [] } });
    expect(emptied.json.surveyGroup).toBeNull();
    expect((await call(`//__sandbox/survey-groups/900/surveys/${ids[0] ?? 0}`, { method: "DELETE" })).status).toBe(404);
    const bobs = api.listSurveys(BOB.supplierId)[0]?.SurveyId ?? 0;
    expect(
      (await call("//__sandbox/survey-groups/901", { method: "PUT", body: { surveyIds: [ids[0], bobs] } })).status,
    ).toBe(409);
    expect((await call("//__sandbox/survey-groups/901", { method: "PUT", body: { surveyIds: "1,2" } })).status).toBe(
      400,
    );
    expect((await call("//__sandbox/survey-groups/abc", { method: "PUT", body: { surveyIds: [] } })).status).toBe(400);
  });

  it("replaces a re-contact list and sets stats", async () => {
    const recontact =
      api.listSurveys(ALICE.supplierId, "all").find((survey) => survey.StudyTypeId === RECONTACT_STUDY_TYPE_ID)
        ?.SurveyId ?? 0;
    const replaced = await call(`//__sandbox/surveys/${recontact}/recontact-respondents`, {
      method: "PUT",
      body: { respondents: [{ PID: "x", IsActive: false }] },
    });
    expect(replaced.json.respondents).toEqual([{ PID: "x", IsActive: false }]);
    expect((await call(`/recontact-respondents/${recontact}`)).json.Respondents).toEqual([
      { PID: "x", IsActive: false },
    ]);
    const other =
      api.listSurveys(ALICE.supplierId).find((survey) => survey.StudyTypeId !== RECONTACT_STUDY_TYPE_ID)?.SurveyId ?? 0;
    expect(
      (await call(`//__sandbox/surveys/${other}/recontact-respondents`, { method: "PUT", body: { respondents: [] } }))
        .status,
    ).toBe(409);
    expect(
      (
        await call(`//__sandbox/surveys/${recontact}/recontact-respondents`, {
          method: "PUT",
          body: { respondents: [{ PID: 7 }] },
        })
      ).status,
    ).toBe(400);

    const stats = { Supplier: { SystemConversion: 30, EffectiveEPC: 0.9, LengthOfInterview: 11 } };
    expect(
      (await call(`//__sandbox/surveys/${recontact}/stats`, { method: "PUT", body: { stats } })).json.stats,
    ).toEqual(stats);
    expect((await call(`/survey-stats/${recontact}`)).json.Stats).toEqual(stats);
    expect(
      (
        await call(`//__sandbox/surveys/${recontact}/stats`, {
          method: "PUT",
          body: { stats: { Supplier: { SystemConversion: "30" } } },
        })
      ).status,
    ).toBe(400);
    const restored = await call(`//__sandbox/surveys/${recontact}/stats`, { method: "PUT", body: { stats: null } });
    expect(restored.json.stats).toEqual(api.getSurvey(recontact)?.stats);
    expect((await call(`//__sandbox/surveys/${recontact}`)).json).toMatchObject({
      stats: restored.json.stats,
      recontactRespondents: [{ PID: "x", IsActive: false }],
    });
  });
});
