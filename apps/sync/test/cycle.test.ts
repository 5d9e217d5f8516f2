import { afterEach, describe, expect, it } from "vitest";
import type { QualificationInit } from "@sds/testing";
import { createCycleHarness, type CycleHarness } from "./harness.ts";

let harness: CycleHarness;
afterEach(async () => {
  await harness.close();
});

const operationsOf = (requests: ReturnType<CycleHarness["takeRequests"]>) =>
  requests.map((request) => request.operationId);
const count = <T>(items: readonly T[], item: T) => items.filter((candidate) => candidate === item).length;

describe("the sync cycle", () => {
  it("stores every live survey with its qualifications where Has_Qualifications, and quotas where Has_Quotas, on the first cycle", async () => {
    harness = await createCycleHarness({ surveys: 30 });
    const live = harness.api.listSurveys(1001);
    const withQualifications = live.filter((survey) => survey.Has_Qualifications).length;
    const withQuotas = live.filter((survey) => survey.Has_Quotas).length;

    const result = await harness.cycle();

    expect(result.status).toBe("succeeded");
    const operations = operationsOf(harness.takeRequests());
    expect(count(operations, "listSurveys")).toBe(1);
    expect(count(operations, "getSurveyQualifications")).toBe(withQualifications);
    expect(count(operations, "getSurveyQuotas")).toBe(withQuotas);
    expect(operations).toHaveLength(1 + withQualifications + withQuotas);
    expect(result.counts).toMatchObject({
      listed: 30,
      opened: 30,
      upstreamRequests: 1 + withQualifications + withQuotas,
      changes: 30,
    });

    for (const survey of live) {
      const stored = await harness.store.getSurvey(survey.SurveyId);
      const upstream = harness.api.getSurvey(survey.SurveyId);
      expect(stored?.survey).toEqual(survey);
      expect(stored?.qualifications).toEqual(upstream?.qualifications);
      expect(stored?.quotas).toEqual(survey.Has_Quotas ? upstream?.quotas : []);
    }
    const changes = await harness.store.listChanges(0, 1000);
    expect(changes.map((change) => change.type)).toEqual(Array.from({ length: 30 }, () => "opened"));
    expect(changes.map((change) => change.sequence)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
  });

  it("makes exactly one upstream request and writes only its run record when nothing changed", async () => {
    harness = await createCycleHarness({ surveys: 25 });
    await harness.cycle();
    harness.takeRequests();
    const before = await harness.store.listSurveys({ status: "all", limit: 100 });
    const sequence = await harness.store.latestSequence();

    const result = await harness.cycle();

    expect(operationsOf(harness.takeRequests())).toEqual(["listSurveys"]);
    expect(result.counts).toMatchObject({ upstreamRequests: 1, changes: 0, opened: 0, updated: 0 });
    expect(await harness.store.latestSequence()).toBe(sequence);
    expect(await harness.store.listSurveys({ status: "all", limit: 100 })).toEqual(before);
    expect(await harness.store.listRuns(10)).toHaveLength(2);
  });

  it("refetches qualifications only for the k surveys whose Qual_LastUpdatedOnUTC moved: 1 + k requests", async () => {
    harness = await createCycleHarness({ surveys: 40 });
    await harness.cycle();
    harness.takeRequests();
    const moved = harness.api.listSurveys(1001).slice(5, 12);
    const replacement: QualificationInit[] = [
      { QualificationId: 42, QualificationTypeId: 1, OptionIds: [1, 2], OptionCodes: ["1", "2"] },
    ];
    for (const survey of moved) harness.api.replaceQualifications(survey.SurveyId, replacement);

    const result = await harness.cycle();

    const requests = harness.takeRequests();
    expect(requests).toHaveLength(1 + moved.length);
    expect(
      requests
        .filter((request) => request.operationId === "getSurveyQualifications")
        .map((request) => request.path)
        .sort(),
    ).toEqual(moved.map((survey) => `/api/v1/survey-qualifications/${survey.SurveyId}`).sort());
    // The fake sets Has_Qualifications from the new records: a survey that had none also changed that field.
    const flagged = moved.filter((survey) => !survey.Has_Qualifications).map((survey) => survey.SurveyId);
    expect(result.counts).toMatchObject({
      qualificationsChanged: moved.length,
      updated: flagged.length,
      upstreamRequests: 1 + moved.length,
    });
    const changes = await harness.store.listChanges(40, 100);
    expect(
      changes.filter((change) => change.type === "qualifications_changed").map((change) => change.surveyId),
    ).toEqual(moved.map((survey) => survey.SurveyId));
    expect(changes.filter((change) => change.type === "updated").map((change) => change.surveyId)).toEqual(flagged);
    const stored = await harness.store.getSurvey(moved[0]?.SurveyId ?? 0);
    expect(stored?.qualifications).toMatchObject([{ QualificationId: 42, OptionIds: [1, 2] }]);
    expect(stored?.survey).toEqual(harness.api.getSurvey(moved[0]?.SurveyId ?? 0)?.survey);
  });

  it("reports a changed field as updated without refetching qualifications", async () => {
    harness = await createCycleHarness({ surveys: 10 });
    await harness.cycle();
    harness.takeRequests();
    const [target] = harness.api.listSurveys(1001);
    harness.api.updateSurvey(target?.SurveyId ?? 0, { Cpi: "9.99" });

    const result = await harness.cycle();

    expect(operationsOf(harness.takeRequests())).toEqual(["listSurveys"]);
    expect(result.counts).toMatchObject({ updated: 1, changes: 1 });
    expect(((await harness.store.getSurvey(target?.SurveyId ?? 0))?.survey as { Cpi: string }).Cpi).toBe("9.99");
    expect(
      (await harness.store.listSurveys({ status: "live", minCpi: 9.99, limit: 10 })).surveys.map((survey) => survey.id),
    ).toEqual([target?.SurveyId]);
  });

  it("keeps a survey that left the live list as closed, and reopens it when it returns", async () => {
    harness = await createCycleHarness({ surveys: 10 });
    await harness.cycle();
    const [target] = harness.api.listSurveys(1001);
    const id = target?.SurveyId ?? 0;
    harness.api.closeSurvey(id);

    const closing = await harness.cycle();
    expect(closing.counts).toMatchObject({ closed: 1, changes: 1 });
    const closed = await harness.store.getSurvey(id);
    expect(closed?.status).toBe("closed");
    expect(closed?.closedAt).toBe(closing.startedAt.toISOString());
    expect(closed?.qualifications.length).toBe(harness.api.getSurvey(id)?.qualifications.length);

    harness.takeRequests();
    harness.api.reopenSurvey(id);
    const reopening = await harness.cycle();
    expect(reopening.counts).toMatchObject({ reopened: 1, changes: 1 });
    // Qual_LastUpdatedOnUTC did not move while it was closed: nothing to fetch but the list.
    expect(operationsOf(harness.takeRequests())).toEqual(["listSurveys"]);
    expect(await harness.store.getSurvey(id)).toMatchObject({
      status: "live",
      closedAt: null,
      survey: harness.api.getSurvey(id)?.survey,
    });
    const changes = await harness.store.listChanges(10, 10);
    expect(changes.map((change) => [change.type, change.surveyId])).toEqual([
      ["closed", id],
      ["reopened", id],
    ]);
  });

  it("marks a survey whose qualifications fetch failed for refetch, and completes it next cycle", async () => {
    harness = await createCycleHarness({ surveys: 8 });
    const [target] = harness.api.listSurveys(1001);
    const id = target?.SurveyId ?? 0;
    harness.api.faults.add({ kind: "status", status: 500, path: `/survey-qualifications/${id}`, count: 1 });

    const first = await harness.cycle();
    expect(first.status).toBe("succeeded");
    expect(first.counts).toMatchObject({ opened: 8, fetchFailures: 1 });
    expect(await harness.store.getSurvey(id)).toMatchObject({ needsRefetch: true, qualifications: [] });
    expect((await harness.store.stats()).needsRefetch).toBe(1);

    harness.takeRequests();
    const second = await harness.cycle();
    expect(harness.takeRequests().map((request) => request.path)).toEqual([
      "/api/v1/surveys",
      `/api/v1/survey-qualifications/${id}`,
    ]);
    expect(second.counts).toMatchObject({ qualificationsChanged: 1, fetchFailures: 0 });
    expect(await harness.store.getSurvey(id)).toMatchObject({
      needsRefetch: false,
      qualifications: harness.api.getSurvey(id)?.qualifications,
    });
  });

  it("quarantines a malformed survey, keeps the good ones, and does not close a stored survey that turned malformed", async () => {
    harness = await createCycleHarness({ surveys: 6 });
    await harness.cycle();
    const [target] = harness.api.listSurveys(1001);
    const id = target?.SurveyId ?? 0;
    harness.api.updateSurvey(id, { Cpi: 3 as unknown as string }, { allowInvalid: true });
    harness.api.addSurvey(1001, { survey: { SurveyId: 555, LastUpdatedOnUTC: "yesterday" }, allowInvalid: true });
    harness.api.addSurvey(1001, { survey: { SurveyId: 556 } });

    const result = await harness.cycle();

    expect(result.status).toBe("succeeded");
    expect(result.counts).toMatchObject({ quarantined: 2, opened: 1, closed: 0 });
    expect((await harness.store.getSurvey(id))?.status).toBe("live");
    expect(await harness.store.getSurvey(555)).toBeUndefined();
    expect((await harness.store.getSurvey(556))?.status).toBe("live");
    const quarantine = await harness.store.listQuarantine(10);
    expect(quarantine.map((entry) => entry.key).sort()).toEqual([`surveys:${id}`, "surveys:555"]);
    expect(quarantine.find((entry) => entry.surveyId === id)?.issues).toMatchObject([{ path: ["Cpi"] }]);
  });

  it("keeps serving the last good data when the live list fails, and records the failed run", async () => {
    harness = await createCycleHarness({ surveys: 5 });
    await harness.cycle();
    const before = await harness.store.listSurveys({ status: "all", limit: 10 });
    harness.api.faults.add({ kind: "status", status: 503, operation: "listSurveys" });

    const result = await harness.cycle();

    expect(result.status).toBe("failed");
    expect(result.error).toMatch(/503/);
    expect(await harness.store.listSurveys({ status: "all", limit: 10 })).toEqual(before);
    const [run] = await harness.store.listRuns(1);
    expect(run).toMatchObject({ status: "failed" });
    expect((await harness.store.lastSuccessfulRun())?.id).not.toBe(run?.id);

    harness.api.faults.clear();
    expect((await harness.cycle()).status).toBe("succeeded");
  });

  it("fetches quotas only while Has_Quotas, and empties them when it turns false", async () => {
    harness = await createCycleHarness({
      surveys: [
        { survey: { SurveyId: 1, Has_Quotas: true }, quotas: [{ QuotaId: 7, Conditions: [] }] },
        { survey: { SurveyId: 2, Has_Quotas: false } },
      ],
    });
    await harness.cycle();
    expect((await harness.store.getSurvey(1))?.quotas).toEqual([{ QuotaId: 7, Conditions: [] }]);
    expect(operationsOf(harness.takeRequests()).filter((operation) => operation === "getSurveyQuotas")).toHaveLength(1);

    harness.api.replaceQuotas(1, [{ QuotaId: 8, Conditions: [] }]);
    const moved = await harness.cycle();
    expect(moved.counts).toMatchObject({ quotasChanged: 1, qualificationsChanged: 0, upstreamRequests: 2 });
    expect((await harness.store.getSurvey(1))?.quotas).toEqual([{ QuotaId: 8, Conditions: [] }]);

    harness.api.updateSurvey(1, { Has_Quotas: false });
    harness.takeRequests();
    const cleared = await harness.cycle();
    expect(operationsOf(harness.takeRequests())).toEqual(["listSurveys"]);
    expect(cleared.counts).toMatchObject({ quotasChanged: 1, updated: 1 });
    expect((await harness.store.getSurvey(1))?.quotas).toEqual([]);
  });
  it("fetches qualifications only while Has_Qualifications: an empty list and no request without it, fetched once it turns true", async () => {
    const upstreamQualifications: QualificationInit[] = [
      { QualificationId: 42, QualificationTypeId: 1, OptionIds: [1], OptionCodes: ["1"] },
    ];
    // The upstream holds qualification records for survey 1 although its flag says it has none: the flag decides.
    harness = await createCycleHarness({
      surveys: [
        { survey: { SurveyId: 1, Has_Qualifications: false }, qualifications: upstreamQualifications },
        { survey: { SurveyId: 2, Has_Qualifications: true } },
      ],
    });
    const qualificationRequests = () =>
      harness
        .takeRequests()
        .filter((request) => request.operationId === "getSurveyQualifications")
        .map((request) => request.path);

    const first = await harness.cycle();
    expect(first.status).toBe("succeeded");
    expect(qualificationRequests()).toEqual(["/api/v1/survey-qualifications/2"]);
    expect(await harness.store.getSurvey(1)).toMatchObject({ needsRefetch: false, qualifications: [] });
    expect(first.counts).toMatchObject({ opened: 2, qualificationsFetched: 1, fetchFailures: 0 });

    // Nothing moved: no request for survey 1 on the next cycle either.
    await harness.cycle();
    expect(qualificationRequests()).toEqual([]);

    // The flag turns true while Qual_LastUpdatedOnUTC stays where it was: fetched all the same.
    const qualUpdated = harness.api.getSurvey(1)?.survey.Qual_LastUpdatedOnUTC;
    harness.api.updateSurvey(1, { Has_Qualifications: true });
    expect(harness.api.getSurvey(1)?.survey.Qual_LastUpdatedOnUTC).toBe(qualUpdated);
    const flippedOn = await harness.cycle();
    expect(qualificationRequests()).toEqual(["/api/v1/survey-qualifications/1"]);
    expect(flippedOn.counts).toMatchObject({ updated: 1, qualificationsChanged: 1 });
    expect((await harness.store.getSurvey(1))?.qualifications).toMatchObject([
      { QualificationId: 42, OptionCodes: ["1"] },
    ]);

    // And false again: the stored ones are emptied without a request.
    harness.api.updateSurvey(1, { Has_Qualifications: false });
    const flippedOff = await harness.cycle();
    expect(qualificationRequests()).toEqual([]);
    expect(flippedOff.counts).toMatchObject({ updated: 1, qualificationsChanged: 1 });
    expect(await harness.store.getSurvey(1)).toMatchObject({ needsRefetch: false, qualifications: [] });
    const lastChanges = await harness.store.listChanges(flippedOn.lastSequence ?? 0, 10);
    expect(lastChanges.map((change) => [change.type, change.surveyId])).toEqual([
      ["updated", 1],
      ["qualifications_changed", 1],
    ]);
  });
});
