import {
  expandPath,
  parseSurveyList,
  operationIds,
  operations,
  strict,
  SupplierAccountResponse,
  SurveyListResponse,
  SurveyQualificationsResponse,
  UpdateResponse,
  type OperationDefinition,
  type OperationId,
} from "@sds/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpCaller, inProcessCaller, validUrlSettings, type Caller } from "../../test/http.ts";
import { createFakeSupplierApi, fakeErrorCodes, type FakeSupplierApi } from "../index.ts";

const ALICE = { supplierId: 1001, apiKey: "alice-key" };
const BOB = { supplierId: 2002, apiKey: "bob-key" };

/** Path params that name something the caller (Alice) owns. */
function pathFor(id: OperationId, api: FakeSupplierApi): string {
  const surveyId = api.listSurveys(ALICE.supplierId)[0]?.SurveyId ?? 0;
  return expandPath(operations[id].path, {
    SupplierId: ALICE.supplierId,
    surveyId,
    languageId: 3,
    qualificationId: 43,
  });
}

const transports = [
  ["over HTTP", httpCaller],
  ["in-process", (api: FakeSupplierApi, key?: string) => Promise.resolve(inProcessCaller(api, key))],
] as const;

describe.each(transports)("the fake service %s", (_name, connect) => {
  let api: FakeSupplierApi;
  let call: Caller;

  beforeEach(async () => {
    api = createFakeSupplierApi({
      seed: 9,
      now: () => Date.UTC(2026, 2, 1),
      suppliers: [
        { ...ALICE, surveys: 12, closedSurveys: 3 },
        { ...BOB, surveys: 5 },
      ],
    });
    call = await connect(api, ALICE.apiKey);
  });
  afterEach(async () => {
    await api.close();
  });

  it("answers every operation of the operations table with a body its response schema accepts", async () => {
    for (const id of operationIds) {
      const operation: OperationDefinition = operations[id];
      const result = await call(pathFor(id, api), {
        method: operation.method,
        ...(operation.body ? { body: validUrlSettings } : {}),
      });
      expect(result.status, id).toBe(200);
      expect(operation.response.safeParse(result.json).error, id).toBeUndefined();
      expect(result.json, id).toMatchObject({ status: "ok", hasError: false, error: { errorCode: "" } });
      expect(result.headers.get("content-type")).toMatch(/^application\/json/);
    }
  });

  it("dates its answers by its own clock, so clock skew can be simulated", async () => {
    const { headers } = await call("/surveys");
    expect(headers.get("date")).toBe(new Date(Date.UTC(2026, 2, 1)).toUTCString());
  });

  it("matches the documented operations' schemas exactly, with no field the spec does not list", async () => {
    expect(strict(SupplierAccountResponse).safeParse((await call("/supplier-account")).json).error).toBeUndefined();
    expect(strict(SurveyListResponse).safeParse((await call("/surveys")).json).error).toBeUndefined();
    const surveyId = api.listSurveys(ALICE.supplierId)[0]?.SurveyId ?? 0;
    expect(
      strict(SurveyQualificationsResponse).safeParse((await call(`/survey-qualifications/${surveyId}`)).json).error,
    ).toBeUndefined();
    const update = await call("/supplier-account/1001/redirect-url", { method: "PUT", body: validUrlSettings });
    expect(strict(UpdateResponse).safeParse(update.json).error).toBeUndefined();
  });

  it("lists only the caller's live surveys, in SurveyId order, with the caller's SupplierId (Rule 1)", async () => {
    const [first] = api.listSurveys(ALICE.supplierId);
    api.closeSurvey(first?.SurveyId ?? 0);
    const { json } = await call("/surveys");
    const listed = (json.Surveys as { SurveyId: number }[]).map((survey) => survey.SurveyId);
    expect(json.SupplierId).toBe(ALICE.supplierId);
    expect(listed).toEqual(api.listSurveys(ALICE.supplierId, "live").map((survey) => survey.SurveyId));
    expect(listed).toHaveLength(11);
    expect(listed).not.toContain(first?.SurveyId);
    for (const closed of api.listSurveys(ALICE.supplierId, "closed")) expect(listed).not.toContain(closed.SurveyId);
    for (const other of api.listSurveys(BOB.supplierId, "all")) expect(listed).not.toContain(other.SurveyId);
    expect([...listed].sort((left, right) => left - right)).toEqual(listed);
  });

  it("returns the qualifications of the survey named by surveyId and no other (Rule 2)", async () => {
    for (const survey of api.listSurveys(ALICE.supplierId).slice(0, 5)) {
      const { json } = await call(`/survey-qualifications/${survey.SurveyId}`);
      expect(json.SurveyId).toBe(survey.SurveyId);
      const records = json.Qualifications as { SurveyId: number }[];
      for (const record of records) expect(record.SurveyId).toBe(survey.SurveyId);
      expect(records).toEqual(api.getSurvey(survey.SurveyId)?.qualifications);
    }
  });

  it("replaces the redirect URLs, answers the envelope alone with one confirmation, and shows them next (Rule 3)", async () => {
    const body = { ...validUrlSettings, Enabled: false };
    const update = await call("/supplier-account/1001/redirect-url", { method: "PUT", body });
    expect(update.status).toBe(200);
    expect(Object.keys(update.json).sort()).toEqual(["error", "hasError", "messages", "status"]);
    expect(update.json.messages).toEqual([expect.stringMatching(/redirect url/i)]);
    const { json } = await call("/supplier-account");
    expect((json.data as Record<string, unknown>).RedirectUrls).toEqual(body);
  });

  it("replaces the S2S URLs without touching the redirect URLs", async () => {
    const before = api.getAccount(ALICE.supplierId);
    const body = { ...validUrlSettings, CompleteUrl: "https://s2s.example.com/done?rid=[%RID%]" };
    const update = await call("/supplier-account/1001/s2s-redirect-url", { method: "PUT", body });
    expect(update.json.messages).toEqual([expect.stringMatching(/S2S/)]);
    const after = api.getAccount(ALICE.supplierId);
    expect(after.S2SUrls).toEqual(body);
    expect(after.RedirectUrls).toEqual(before.RedirectUrls);
    expect(api.getAccount(BOB.supplierId).S2SUrls).not.toEqual(body);
  });

  it("stores only the five documented fields of an update body", async () => {
    await call("/supplier-account/1001/redirect-url", {
      method: "PUT",
      body: { ...validUrlSettings, Extra: "ignored" },
    });
    expect(api.getAccount(ALICE.supplierId).RedirectUrls).toEqual(validUrlSettings);
  });

  it("answers 401 with the error envelope on every operation when the key is missing or wrong", async () => {
    for (const id of operationIds) {
      const operation: OperationDefinition = operations[id];
      for (const key of [null, "wrong-key", ""]) {
        const result = await call(pathFor(id, api), {
          method: operation.method,
          key,
          ...(operation.body ? { body: validUrlSettings } : {}),
        });
        expect(result.status, `${id} with key ${String(key)}`).toBe(401);
        expect(result.json).toMatchObject({ hasError: true, status: "error" });
        expect((result.json.error as { errorCode: string }).errorCode).toMatch(/^(MISSING|INVALID)_API_KEY$/);
        expect(result.text).not.toContain(ALICE.apiKey);
      }
    }
    expect(api.getAccount(ALICE.supplierId).RedirectUrls).not.toEqual(validUrlSettings);
  });

  it("authenticates each key as its own supplier", async () => {
    const { json } = await call("/surveys", { key: BOB.apiKey });
    expect(json.SupplierId).toBe(BOB.supplierId);
    expect(json.Surveys).toHaveLength(5);
    expect(((await call("/supplier-account", { key: BOB.apiKey })).json.data as { Id: string }).Id).toBe("2002");
  });

  it("refuses with 403 an update whose SupplierId is not the caller's, and changes nothing", async () => {
    const before = api.getAccount(BOB.supplierId);
    for (const supplierId of ["2002", "abc", "01001"]) {
      for (const kind of ["redirect-url", "s2s-redirect-url"]) {
        const result = await call(`/supplier-account/${supplierId}/${kind}`, { method: "PUT", body: validUrlSettings });
        expect(result.status).toBe(403);
        expect(result.json).toMatchObject({ hasError: true, error: { errorCode: fakeErrorCodes.supplierMismatch } });
      }
    }
    expect(api.getAccount(BOB.supplierId)).toEqual(before);
  });

  it("answers 404 for an unknown survey and for another supplier's survey, on every survey operation", async () => {
    const bobsSurvey = api.listSurveys(BOB.supplierId)[0]?.SurveyId ?? 0;
    for (const id of [
      "getSurveyQualifications",
      "getSurveyQuotas",
      "getSurveyStats",
      "getSurveyGroups",
      "listRecontactRespondents",
    ] as const) {
      for (const surveyId of [999_999, bobsSurvey]) {
        const result = await call(expandPath(operations[id].path, { surveyId }));
        expect(result.status, id).toBe(404);
        expect(result.json).toMatchObject({ hasError: true, error: { errorCode: fakeErrorCodes.surveyNotFound } });
      }
    }
  });

  it("still serves the details of a closed survey, which only leaves the list", async () => {
    const closed = api.listSurveys(ALICE.supplierId, "closed")[0];
    expect((await call(`/survey-qualifications/${closed?.SurveyId ?? 0}`)).status).toBe(200);
  });

  it("answers 400 for a path parameter that is not an integer", async () => {
    for (const path of [
      "/survey-qualifications/abc",
      "/survey-quotas/-1",
      "/survey-stats/1.5",
      "/collection/languages/x/qualifications/43",
      "/survey-groups/%E0%A4%A",
    ]) {
      const result = await call(path);
      expect(result.status, path).toBe(400);
      expect((result.json.error as { errorCode: string }).errorCode).toBe(fakeErrorCodes.invalidPathParameter);
    }
  });

  it("answers 404 with the envelope for an unknown route, a trailing slash or a path outside /api/v1", async () => {
    for (const path of [
      "/nope",
      "/surveys/",
      "/Surveys",
      "/survey-qualifications",
      "//api/v2/surveys",
      "//surveys",
      "//",
    ]) {
      const result = await call(path);
      expect(result.status, path).toBe(404);
      expect(result.json).toMatchObject({ hasError: true, error: { errorCode: fakeErrorCodes.routeNotFound } });
    }
  });

  it("answers 405 with Allow for a known path with the wrong method", async () => {
    const result = await call("/surveys", { method: "POST", body: {} });
    expect(result.status).toBe(405);
    expect(result.headers.get("allow")).toBe("GET");
    expect((result.json.error as { errorCode: string }).errorCode).toBe(fakeErrorCodes.methodNotAllowed);
    expect((await call("/supplier-account/1001/redirect-url")).headers.get("allow")).toBe("PUT");
  });

  it("answers 404 for an unknown language or catalogue qualification", async () => {
    expect((await call("/collection/languages/999/qualifications/43")).status).toBe(404);
    expect((await call("/collection/languages/3/qualifications/999")).status).toBe(404);
  });

  it("keeps the control routes off unless enabled", async () => {
    const result = await call("//__sandbox/suppliers");
    expect(result.status).toBe(404);
  });
});

describe("the HTTP server", () => {
  it("treats a request target starting with // as a path, not as a host", async () => {
    const api = createFakeSupplierApi();
    const server = await api.listen();
    try {
      const response = await fetch(`${server.origin}//evil.example/api/v1/surveys`, {
        headers: { "EQ-PARTNER-ACCESS-KEY": api.keys[0]?.apiKey ?? "" },
      });
      expect(response.status).toBe(404);
      expect(api.requestLog()[0]?.path).toBe("//evil.example/api/v1/surveys");
    } finally {
      await api.close();
    }
  });
});

describe("a fake with 10,000 surveys", () => {
  it("lists every one of them, all valid, and serves each one's qualifications", async () => {
    const api = createFakeSupplierApi({ seed: 21, suppliers: [{ supplierId: 7, apiKey: "big", surveys: 10_000 }] });
    const call = await httpCaller(api);
    try {
      const result = parseSurveyList((await call("/surveys")).json);
      expect(result.success && result.invalid).toEqual([]);
      expect(result.success && result.data.Surveys.length).toBe(10_000);
      const last = api.listSurveys(7).at(-1)?.SurveyId ?? 0;
      expect((await call(`/survey-qualifications/${last}`)).json.SurveyId).toBe(last);
    } finally {
      await api.close();
    }
  });
});
