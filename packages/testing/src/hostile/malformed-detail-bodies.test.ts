import { parseRecontactRespondents, parseSurveyGroups } from "@sds/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFakeSupplierApi } from "../fake/create-fake-supplier-api.ts";
import { API_KEY_HEADER, DEFAULT_API_KEY } from "../fake/constants.ts";
import type { FakeSupplierApi } from "../fake/types.ts";
import { RECONTACT_STUDY_TYPE_ID } from "../fixtures/collections.ts";
import { createHostileUpstream, type HostileUpstream } from "./create-hostile-upstream.ts";
import type { MalformedBodyKind } from "./scenarios.ts";

/*
 * The malformed group and re-contact bodies of the hostile front, over real HTTP: what a sync
 * service reads must fail to parse (or be a 404) without the front lying about anything else.
 */

let api: FakeSupplierApi;
let hostile: HostileUpstream;
let baseUrl: string;
let grouped: number;
let recontact: number;

beforeEach(async () => {
  api = createFakeSupplierApi({ seed: 3, suppliers: [{ supplierId: 1001, apiKey: DEFAULT_API_KEY, surveys: 60 }] });
  hostile = createHostileUpstream(api);
  baseUrl = (await hostile.listen()).baseUrl;
  grouped = api.listSurveys(1001).find((survey) => survey.Has_Survey_Groups)?.SurveyId ?? 0;
  recontact = api.addSurvey(1001, { survey: { StudyTypeId: RECONTACT_STUDY_TYPE_ID } }).SurveyId;
});
afterEach(async () => {
  await hostile.close();
  await api.close();
});

async function get(path: string): Promise<{ status: number; type: string | null; text: string; json: unknown }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { [API_KEY_HEADER]: DEFAULT_API_KEY } });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, type: response.headers.get("content-type"), text, json };
}

const kinds: readonly MalformedBodyKind[] = ["wrong-types", "html", "truncated-json", "not-found"];

describe("malformed survey groups and re-contact lists", () => {
  it.each(kinds)("break Get Survey Groups with %s, so that parseSurveyGroups reports a problem", async (body) => {
    const honest = await get(`/survey-groups/${grouped}`);
    expect(parseSurveyGroups(honest.json).ok).toBe(true);
    hostile.use({ kind: "malformed-survey-groups", body });
    const broken = await get(`/survey-groups/${grouped}`);
    if (body === "not-found") {
      expect(broken.status).toBe(404);
      expect(broken.json).toMatchObject({ hasError: true, error: { errorCode: "ROUTE_NOT_FOUND" } });
      return;
    }
    expect(broken.status).toBe(200);
    expect(parseSurveyGroups(broken.json)).toMatchObject({ ok: false });
    if (body === "html") expect(broken.type).toMatch(/^text\/html/);
    if (body === "truncated-json")
      expect(honest.text.startsWith(broken.text) && broken.text.length < honest.text.length).toBe(true);
    if (body === "wrong-types") expect(broken.text).toContain(`"SurveyGroupID":"`);
  });

  it.each(kinds)(
    "break Get ReContact Respondents with %s, so that parseRecontactRespondents reports a problem",
    async (body) => {
      expect(parseRecontactRespondents((await get(`/recontact-respondents/${recontact}`)).json).ok).toBe(true);
      hostile.use({ kind: "malformed-recontact-respondents", body });
      const broken = await get(`/recontact-respondents/${recontact}`);
      expect(broken.status).toBe(body === "not-found" ? 404 : 200);
      if (body !== "not-found") expect(parseRecontactRespondents(broken.json)).toMatchObject({ ok: false });
    },
  );

  it("break only the surveys named, and only their operation", async () => {
    const other = api.listSurveys(1001).find((survey) => survey.SurveyId !== grouped)?.SurveyId ?? 0;
    hostile.use({ kind: "malformed-survey-groups", body: "html", surveyIds: [grouped] });
    expect((await get(`/survey-groups/${grouped}`)).type).toMatch(/^text\/html/);
    expect(parseSurveyGroups((await get(`/survey-groups/${other}`)).json).ok).toBe(true);
    expect(parseRecontactRespondents((await get(`/recontact-respondents/${recontact}`)).json).ok).toBe(true);
    expect((await get("/surveys")).status).toBe(200);
    hostile.clear();
    expect(parseSurveyGroups((await get(`/survey-groups/${grouped}`)).json).ok).toBe(true);
  });

  it("leave the fake's own 404 for an unknown survey as it is", async () => {
    hostile.use({ kind: "malformed-survey-groups", body: "wrong-types" });
    expect((await get("/survey-groups/424242")).json).toMatchObject({ error: { errorCode: "SURVEY_NOT_FOUND" } });
  });
});
