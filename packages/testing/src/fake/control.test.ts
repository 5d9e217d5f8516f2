import { Survey } from "@sds/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpCaller, inProcessCaller, manualClock, type Caller } from "../../test/http.ts";
import { createFakeSupplierApi, type FakeSupplierApi } from "../index.ts";

const qualificationInit = { QualificationId: 43, QualificationTypeId: 1, OptionIds: [43002], OptionCodes: ["2"] };
const quota = { QuotaId: 1, Conditions: [{ QualificationId: 43, OptionIds: [43002] }] };

describe("control methods", () => {
  let clock: ReturnType<typeof manualClock>;
  let api: FakeSupplierApi;
  let call: Caller;

  beforeEach(() => {
    clock = manualClock();
    api = createFakeSupplierApi({
      seed: 5,
      now: clock.now,
      suppliers: [
        { supplierId: 1001, apiKey: "k1", surveys: 3 },
        { supplierId: 2002, apiKey: "k2", surveys: 1 },
      ],
    });
    call = inProcessCaller(api, "k1");
  });

  const listedIds = async (): Promise<number[]> =>
    ((await call("/surveys")).json.Surveys as Survey[]).map((survey) => survey.SurveyId);

  it("adds a generated survey that is listed at once, with LastUpdatedOnUTC at the clock's now", async () => {
    const survey = api.addSurvey(1001);
    expect(Survey.safeParse(survey).success).toBe(true);
    expect(survey.LastUpdatedOnUTC).toBe(new Date(clock.now()).toISOString());
    expect(await listedIds()).toContain(survey.SurveyId);
  });

  it("adds a survey with given fields, qualifications and quotas, and serves them", async () => {
    const survey = api.addSurvey(1001, {
      survey: { SurveyId: 42, Cpi: "7.25" },
      qualifications: [qualificationInit],
      quotas: [quota],
    });
    expect(survey).toMatchObject({ SurveyId: 42, Cpi: "7.25", Has_Qualifications: true, Has_Quotas: true });
    const qualifications = (await call("/survey-qualifications/42")).json.Qualifications;
    expect(qualifications).toEqual([
      { ...qualificationInit, SurveyId: 42, LastUpdatedOnUTC: survey.Qual_LastUpdatedOnUTC },
    ]);
    expect((await call("/survey-quotas/42")).json.Quotas).toEqual([quota]);
  });

  it("adds a closed survey that is not listed but can be read", async () => {
    const survey = api.addSurvey(1001, { live: false });
    expect(await listedIds()).not.toContain(survey.SurveyId);
    expect((await call(`/survey-qualifications/${survey.SurveyId}`)).status).toBe(200);
  });

  it("refuses an invalid survey, a taken id and an unknown supplier, unless allowInvalid", () => {
    expect(() => api.addSurvey(1001, { survey: { Cpi: 3 as unknown as string } })).toThrow(/Cpi/);
    expect(() => api.addSurvey(1001, { survey: { SurveyId: api.listSurveys(2002)[0]?.SurveyId ?? 0 } })).toThrow(
      /already exists/,
    );
    expect(() => api.addSurvey(9999)).toThrow(RangeError);
    const invalid = api.addSurvey(1001, { survey: { Cpi: 3 as unknown as string }, allowInvalid: true });
    expect(api.getSurvey(invalid.SurveyId)?.survey.Cpi).toBe(3);
  });

  it("serves a stored invalid survey among valid ones, so clients can test per-item validation", async () => {
    const bad = api.addSurvey(1001, { survey: { LastUpdatedOnUTC: "yesterday" }, allowInvalid: true });
    const surveys = (await call("/surveys")).json.Surveys as unknown[];
    expect(surveys).toHaveLength(4);
    expect(surveys.filter((survey) => !Survey.safeParse(survey).success)).toEqual([
      expect.objectContaining({ SurveyId: bad.SurveyId }),
    ]);
  });

  it("moves LastUpdatedOnUTC on update, close and reopen, even with a frozen clock", async () => {
    const [survey] = api.listSurveys(1001);
    const id = survey?.SurveyId ?? 0;
    const stamps = [survey?.LastUpdatedOnUTC ?? ""];
    clock.advance(1000);
    stamps.push(api.updateSurvey(id, { Cpi: "9.99" }).LastUpdatedOnUTC);
    expect(stamps[1]).toBe(new Date(clock.now()).toISOString());
    stamps.push(api.updateSurvey(id, { Completes: 5 }).LastUpdatedOnUTC);
    stamps.push(api.closeSurvey(id).LastUpdatedOnUTC);
    expect(await listedIds()).not.toContain(id);
    stamps.push(api.reopenSurvey(id).LastUpdatedOnUTC);
    expect(await listedIds()).toContain(id);
    const times = stamps.map(Date.parse);
    for (let index = 1; index < times.length; index++) expect(times[index]).toBeGreaterThan(times[index - 1] ?? 0);
    const listed = ((await call("/surveys")).json.Surveys as Survey[]).find((item) => item.SurveyId === id);
    expect(listed).toMatchObject({ Cpi: "9.99", Completes: 5, LastUpdatedOnUTC: stamps.at(-1) });
  });

  it("keeps LastUpdatedOnUTC when the patch sets it, and refuses to change SurveyId", () => {
    const id = api.listSurveys(1001)[0]?.SurveyId ?? 0;
    expect(api.updateSurvey(id, { LastUpdatedOnUTC: "2020-01-01T00:00:00.000Z" }).LastUpdatedOnUTC).toBe(
      "2020-01-01T00:00:00.000Z",
    );
    expect(() => api.updateSurvey(id, { SurveyId: id + 1 })).toThrow(/SurveyId/);
    expect(() => api.updateSurvey(id, { MobileAllowed: "yes" as unknown as boolean })).toThrow(RangeError);
    expect(api.getSurvey(id)?.survey.MobileAllowed).not.toBe("yes");
  });

  it("moves Qual_LastUpdatedOnUTC and LastUpdatedOnUTC together when qualifications are replaced, and not Quota_LastUpdatedOnUTC", async () => {
    const before = api.listSurveys(1001)[0] as Survey;
    clock.advance(60_000);
    const records = api.replaceQualifications(before.SurveyId, [qualificationInit]);
    const after = api.getSurvey(before.SurveyId)?.survey as Survey;
    const moved = new Date(clock.now()).toISOString();
    expect(after.Qual_LastUpdatedOnUTC).toBe(moved);
    expect(after.LastUpdatedOnUTC).toBe(moved);
    expect(after.Quota_LastUpdatedOnUTC).toBe(before.Quota_LastUpdatedOnUTC);
    expect(records).toEqual([{ ...qualificationInit, SurveyId: before.SurveyId, LastUpdatedOnUTC: moved }]);
    expect((await call(`/survey-qualifications/${before.SurveyId}`)).json.Qualifications).toEqual(records);
    api.replaceQualifications(before.SurveyId, []);
    expect(api.getSurvey(before.SurveyId)?.survey.Has_Qualifications).toBe(false);
  });

  it("moves Quota_LastUpdatedOnUTC and LastUpdatedOnUTC together when quotas are replaced, and not Qual_LastUpdatedOnUTC", async () => {
    const before = api.listSurveys(1001)[1] as Survey;
    clock.advance(60_000);
    api.replaceQuotas(before.SurveyId, [quota]);
    const after = api.getSurvey(before.SurveyId)?.survey as Survey;
    expect(after.Quota_LastUpdatedOnUTC).toBe(new Date(clock.now()).toISOString());
    expect(after.LastUpdatedOnUTC).toBe(after.Quota_LastUpdatedOnUTC);
    expect(after.Qual_LastUpdatedOnUTC).toBe(before.Qual_LastUpdatedOnUTC);
    expect(after.Has_Quotas).toBe(true);
    expect((await call(`/survey-quotas/${before.SurveyId}`)).json.Quotas).toEqual([quota]);
  });

  it("keeps generated qualifications unchanged when an unrelated field of the survey changes", () => {
    // A twin with the same seed and clock shows what the records were before any change.
    const twin = createFakeSupplierApi({
      seed: 5,
      now: clock.now,
      suppliers: [
        { supplierId: 1001, apiKey: "k1", surveys: 3 },
        { supplierId: 2002, apiKey: "k2", surveys: 1 },
      ],
    });
    const id = api.listSurveys(1001).find((survey) => survey.Has_Qualifications)?.SurveyId ?? 0;
    api.updateSurvey(id, { Qual_LastUpdatedOnUTC: "2020-01-01T00:00:00.000Z", Has_Qualifications: false });
    const expected = twin.getSurvey(id)?.qualifications;
    expect(expected?.length).toBeGreaterThan(0);
    expect(api.getSurvey(id)?.qualifications).toEqual(expected);
  });

  it("refuses invalid qualification and quota records and keeps the old ones", () => {
    const id = api.listSurveys(1001)[0]?.SurveyId ?? 0;
    const before = api.getSurvey(id);
    expect(() =>
      api.replaceQualifications(id, [{ ...qualificationInit, OptionIds: ["x" as unknown as number] }]),
    ).toThrow(/OptionIds/);
    expect(() => api.replaceQuotas(id, [{ QuotaId: "1" as unknown as number }])).toThrow(/QuotaId/);
    expect(api.getSurvey(id)).toEqual(before);
  });

  it("removes a survey so that it is unknown everywhere", async () => {
    const id = api.listSurveys(1001)[0]?.SurveyId ?? 0;
    api.removeSurvey(id);
    expect(api.getSurvey(id)).toBeUndefined();
    expect(await listedIds()).not.toContain(id);
    expect((await call(`/survey-qualifications/${id}`)).status).toBe(404);
    expect(() => api.closeSurvey(id)).toThrow(RangeError);
  });

  it("returns copies, so changing a returned object does not change the fake", () => {
    const survey = api.listSurveys(1001)[0] as Survey;
    survey.Cpi = "0.01";
    api.getAccount(1001).Name = "changed";
    expect(api.listSurveys(1001)[0]?.Cpi).not.toBe("0.01");
    expect(api.getAccount(1001).Name).not.toBe("changed");
  });

  it("logs each request with method, path, operation, status, supplier, timestamp and duration, and clears the log", async () => {
    await call("/surveys");
    clock.advance(5);
    await call("/nope?x=1", { key: "wrong" });
    expect(api.requestLog()).toEqual([
      {
        method: "GET",
        path: "/api/v1/surveys",
        query: "",
        operationId: "listSurveys",
        status: 200,
        supplierId: 1001,
        timestamp: new Date(clock.now() - 5).toISOString(),
        durationMs: expect.any(Number) as number,
        faults: [],
        injectedLatencyMs: 0,
      },
      {
        method: "GET",
        path: "/api/v1/nope",
        query: "?x=1",
        operationId: null,
        status: 404,
        supplierId: null,
        timestamp: new Date(clock.now()).toISOString(),
        durationMs: expect.any(Number) as number,
        faults: [],
        injectedLatencyMs: 0,
      },
    ]);
    expect(JSON.stringify(api.requestLog())).not.toContain("k1");
    api.clearRequestLog();
    expect(api.requestLog()).toEqual([]);
  });

  it("keeps only the newest requestLogLimit entries", async () => {
    const small = createFakeSupplierApi({ requestLogLimit: 3 });
    const smallCall = inProcessCaller(small);
    for (let index = 0; index < 10; index++) await smallCall(`/survey-stats/${index}`);
    expect(small.requestLog().map((entry) => entry.path)).toEqual([
      "/api/v1/survey-stats/7",
      "/api/v1/survey-stats/8",
      "/api/v1/survey-stats/9",
    ]);
  });

  it("resets to the initial state and empties the log and faults", async () => {
    const initial = api.listSurveys(1001, "all");
    api.addSurvey(1001);
    api.closeSurvey(initial[0]?.SurveyId ?? 0);
    api.faults.add({ kind: "status", status: 500 });
    await call("/surveys");
    api.reset();
    expect(api.listSurveys(1001, "all").map((survey) => survey.SurveyId)).toEqual(
      initial.map((survey) => survey.SurveyId),
    );
    expect(api.faults.list()).toEqual([]);
    expect(api.requestLog()).toEqual([]);
    expect((await call("/surveys")).status).toBe(200);
  });

  it("refuses bad constructor options", () => {
    expect(() =>
      createFakeSupplierApi({
        suppliers: [
          { supplierId: 1, apiKey: "a" },
          { supplierId: 1, apiKey: "b" },
        ],
      }),
    ).toThrow(/twice/);
    expect(() =>
      createFakeSupplierApi({
        suppliers: [
          { supplierId: 1, apiKey: "a" },
          { supplierId: 2, apiKey: "a" },
        ],
      }),
    ).toThrow(/apiKey/);
    expect(() => createFakeSupplierApi({ suppliers: [{ supplierId: 1.5, apiKey: "a" }] })).toThrow(/supplierId/);
    expect(() => createFakeSupplierApi({ suppliers: [{ supplierId: 1, apiKey: " " }] })).toThrow(/apiKey/);
    expect(() => createFakeSupplierApi({ maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => createFakeSupplierApi({ requestLogLimit: -1 })).toThrow(/requestLogLimit/);
    expect(() => createFakeSupplierApi({ suppliers: [{ supplierId: 1, apiKey: "a", surveys: -2 }] })).toThrow(
      /non-negative/,
    );
  });
});

describe("control routes over HTTP", () => {
  let api: FakeSupplierApi;
  let call: Caller;
  beforeEach(async () => {
    api = createFakeSupplierApi({
      seed: 8,
      control: true,
      suppliers: [{ supplierId: 1001, apiKey: "k1", surveys: 2, closedSurveys: 1 }],
    });
    call = await httpCaller(api, "k1");
  });
  afterEach(async () => {
    await api.close();
  });

  it("lists suppliers with their survey counts, without their keys", async () => {
    const result = await call("//__sandbox/suppliers");
    expect(result.json.suppliers).toEqual([
      { supplierId: 1001, name: api.getAccount(1001).Name, liveSurveys: 2, closedSurveys: 1 },
    ]);
    expect(result.text).not.toContain("k1");
  });

  it("adds, updates, closes, reopens and removes a survey, each visible on the service", async () => {
    const added = await call("//__sandbox/suppliers/1001/surveys", {
      method: "POST",
      body: { survey: { Cpi: "4.00" } },
    });
    expect(added.status).toBe(201);
    const id = (added.json.survey as Survey).SurveyId;
    const listed = async (): Promise<Survey | undefined> =>
      ((await call("/surveys")).json.Surveys as Survey[]).find((survey) => survey.SurveyId === id);
    expect((await listed())?.Cpi).toBe("4.00");

    expect((await call(`//__sandbox/surveys/${id}`, { method: "PATCH", body: { Cpi: "5.50" } })).status).toBe(200);
    expect((await listed())?.Cpi).toBe("5.50");
    expect((await call(`//__sandbox/surveys/${id}/close`, { method: "POST" })).status).toBe(200);
    expect(await listed()).toBeUndefined();
    expect((await call(`//__sandbox/surveys/${id}/reopen`, { method: "POST" })).status).toBe(200);
    expect(await listed()).toBeDefined();
    expect((await call(`//__sandbox/surveys/${id}`)).json).toMatchObject({
      supplierId: 1001,
      live: true,
      survey: { SurveyId: id },
    });
    expect((await call(`//__sandbox/surveys/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await call(`//__sandbox/surveys/${id}`)).status).toBe(404);
  });

  it("lists a supplier's surveys by status", async () => {
    expect(((await call("//__sandbox/suppliers/1001/surveys?status=closed")).json.surveys as unknown[]).length).toBe(1);
    expect(((await call("//__sandbox/suppliers/1001/surveys?status=all")).json.surveys as unknown[]).length).toBe(3);
    expect((await call("//__sandbox/suppliers/1001/surveys?status=open")).status).toBe(400);
  });

  it("replaces qualifications and quotas", async () => {
    const id = api.listSurveys(1001)[0]?.SurveyId ?? 0;
    const qualifications = await call(`//__sandbox/surveys/${id}/qualifications`, {
      method: "PUT",
      body: { qualifications: [qualificationInit] },
    });
    expect(qualifications.status).toBe(200);
    expect((await call(`/survey-qualifications/${id}`)).json.Qualifications).toEqual(
      qualifications.json.qualifications,
    );
    const quotas = await call(`//__sandbox/surveys/${id}/quotas`, { method: "PUT", body: { quotas: [quota] } });
    expect(quotas.json.quotas).toEqual([quota]);
    expect((await call(`/survey-quotas/${id}`)).json.Quotas).toEqual([quota]);
  });

  it("answers control errors with the envelope: bad body 400, unknown survey 404, wrong method 405, unknown route 404", async () => {
    const before = api.listSurveys(1001, "all");
    const bad = await call("//__sandbox/suppliers/1001/surveys", { method: "POST", body: { survey: { Cpi: 5 } } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ hasError: true, error: { errorCode: "VALIDATION_FAILED" } });
    expect((await call("//__sandbox/suppliers/1001/surveys", { method: "POST", body: { surveys: [] } })).status).toBe(
      400,
    );
    expect((await call("//__sandbox/suppliers/1001/surveys", { method: "POST", body: "nope" })).status).toBe(400);
    expect(api.listSurveys(1001, "all")).toEqual(before);
    expect((await call("//__sandbox/surveys/123/close", { method: "POST" })).status).toBe(404);
    expect((await call("//__sandbox/suppliers/77/surveys")).status).toBe(404);
    expect((await call("//__sandbox/requests", { method: "PUT" })).status).toBe(405);
    expect((await call("//__sandbox/nothing")).status).toBe(404);
  });

  it("reads and clears the request log, and does not log control requests", async () => {
    await call("/surveys");
    const log = await call("//__sandbox/requests");
    expect(log.json.requests).toEqual([
      expect.objectContaining({ path: "/api/v1/surveys", status: 200, operationId: "listSurveys" }),
    ]);
    await call("//__sandbox/requests", { method: "DELETE" });
    expect((await call("//__sandbox/requests")).json.requests).toEqual([]);
  });

  it("resets the state", async () => {
    const id = api.listSurveys(1001)[0]?.SurveyId ?? 0;
    await call(`//__sandbox/surveys/${id}/close`, { method: "POST" });
    await call("//__sandbox/reset", { method: "POST" });
    expect(api.listSurveys(1001).map((survey) => survey.SurveyId)).toContain(id);
  });
});
