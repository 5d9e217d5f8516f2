import type { SurveyQuota } from "@sds/schemas";
import type { Survey } from "@sds/schemas";
import { describe, expect, it } from "vitest";
import type { MatchableSurvey } from "./match-types.ts";
import { SurveyMatcher } from "./survey-matcher.ts";

function survey(SurveyId: number, fields: Partial<MatchableSurvey> = {}): MatchableSurvey {
  return {
    SurveyId,
    Cpi: "1.00",
    Ir: "50",
    LanguageId: 1,
    DesktopAllowed: true,
    MobileAllowed: true,
    TabletAllowed: true,
    ...fields,
  };
}
const q = (QualificationId: number, ...OptionCodes: string[]) => ({ QualificationId, OptionCodes });
const quota = (
  QuotaId: number,
  Remaining: number | undefined,
  ...Conditions: { QualificationId: number; OptionCodes: string[] }[]
): SurveyQuota => ({
  QuotaId,
  Conditions,
  ...(Remaining === undefined ? {} : { Remaining }),
});
const ids = (matcher: SurveyMatcher, request: Parameters<SurveyMatcher["match"]>[0]) =>
  matcher.match(request).surveyIds;

describe("SurveyMatcher", () => {
  it("orders by Cpi × Ir / 100 descending, then SurveyId ascending", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(5, { Cpi: "2.00", Ir: "50" }), { qualifications: [], quotas: [] });
    matcher.upsert(survey(3, { Cpi: "4.00", Ir: "25" }), { qualifications: [], quotas: [] });
    matcher.upsert(survey(9, { Cpi: "10.00", Ir: "20" }), { qualifications: [], quotas: [] });
    matcher.upsert(survey(1, { Cpi: "0.50", Ir: "90" }), { qualifications: [], quotas: [] });
    expect(ids(matcher, { answers: {} })).toEqual([9, 3, 5, 1]);
    expect(matcher.match({ answers: {}, limit: 2 })).toEqual({ eligible: 4, surveyIds: [9, 3] });
  });

  it("requires every qualification (AND across) and any of its codes (OR within)", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1), { qualifications: [q(43, "1"), q(96, "2", "3")], quotas: [] });
    expect(ids(matcher, { answers: { "43": ["1"], "96": ["3"] } })).toEqual([1]);
    expect(ids(matcher, { answers: { "43": ["2", "1"], "96": ["4", "2"] } })).toEqual([1]);
    expect(ids(matcher, { answers: { "43": ["1"] } })).toEqual([]);
    expect(ids(matcher, { answers: { "43": ["1"], "96": ["4"] } })).toEqual([]);
  });

  it("reads range codes: 25-34 inclusive, 55+ and above, numbers only", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1), { qualifications: [q(42, "25-34", "55+")], quotas: [] });
    for (const age of ["25", "34", "55", "99", "30.5"])
      expect(ids(matcher, { answers: { "42": [age] } }), age).toEqual([1]);
    for (const age of ["24", "35", "54", "x", ""]) expect(ids(matcher, { answers: { "42": [age] } }), age).toEqual([]);
    expect(ids(matcher, { answers: { "42": ["25-34"] } })).toEqual([1]);
  });

  it("filters by language and device when they are given", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1, { LanguageId: 1, MobileAllowed: false }), { qualifications: [], quotas: [] });
    matcher.upsert(survey(2, { LanguageId: 2 }), { qualifications: [], quotas: [] });
    expect(ids(matcher, { answers: {}, languageId: 1 })).toEqual([1]);
    expect(ids(matcher, { answers: {}, languageId: 3 })).toEqual([]);
    expect(ids(matcher, { answers: {}, device: "mobile" })).toEqual([2]);
    expect(ids(matcher, { answers: {}, device: "tablet" })).toEqual([1, 2]);
  });

  it("keeps the respondent out of a closed quota they fall into, and only that", () => {
    const matcher = new SurveyMatcher();
    const female = { QualificationId: 43, OptionCodes: ["2"] };
    matcher.upsert(survey(1), {
      qualifications: [q(43, "1", "2")],
      quotas: [quota(10, 100), quota(11, 0, female), quota(12, undefined)],
    });
    expect(ids(matcher, { answers: { "43": ["1"] } })).toEqual([1]);
    expect(ids(matcher, { answers: { "43": ["2"] } })).toEqual([]);
    matcher.upsert(survey(2), { qualifications: [], quotas: [quota(20, 0)] });
    expect(ids(matcher, { answers: { "43": ["1"] } })).toEqual([1]);
  });

  it("never routes blind: a survey awaiting its qualifications or quotas is out", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1), { qualifications: null, quotas: [] });
    matcher.upsert(survey(2), { qualifications: [], quotas: null });
    expect(ids(matcher, { answers: {} })).toEqual([]);
    expect(matcher.explain(2, { answers: {} }).reasons).toEqual([
      expect.objectContaining({ kind: "not-stored", missing: ["quotas"] }),
    ]);
    matcher.upsert(survey(1), { qualifications: [], quotas: [] });
    expect(ids(matcher, { answers: {} })).toEqual([1]);
  });

  it("updates in place: an upsert replaces the survey's rules and a removal drops it", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1), { qualifications: [q(43, "1")], quotas: [] });
    matcher.upsert(survey(2), { qualifications: [q(43, "2")], quotas: [] });
    matcher.upsert(survey(1), { qualifications: [q(43, "2")], quotas: [] });
    expect(ids(matcher, { answers: { "43": ["1"] } })).toEqual([]);
    expect(ids(matcher, { answers: { "43": ["2"] } })).toEqual([1, 2]);
    expect(matcher.remove(1)).toBe(true);
    expect(matcher.remove(1)).toBe(false);
    expect(ids(matcher, { answers: { "43": ["2"] } })).toEqual([2]);
    expect(matcher.size).toBe(1);
  });

  it("explains every reason a survey is out", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(7, { LanguageId: 2, DesktopAllowed: false }), {
      qualifications: [q(42, "18-24"), q(43, "1", "2")],
      quotas: [quota(70, 0, { QualificationId: 43, OptionCodes: ["1"] })],
    });
    const explanation = matcher.explain(7, {
      answers: { "42": ["30"], "43": ["1"] },
      languageId: 1,
      device: "desktop",
    });
    expect(explanation.eligible).toBe(false);
    expect(explanation.reasons.map((reason) => reason.kind)).toEqual(["language", "device", "qualification", "quota"]);
    expect(explanation.reasons[2]).toMatchObject({ qualificationId: 42, optionCodes: ["18-24"], answers: ["30"] });
    expect(explanation.reasons[3]).toMatchObject({ quotaId: 70, remaining: 0 });
    expect(matcher.explain(8, { answers: {} })).toMatchObject({ eligible: false, reasons: [{ kind: "not-live" }] });
    expect(matcher.explain(7, { answers: { "42": ["20"], "43": ["2"] } })).toEqual({
      surveyId: 7,
      eligible: true,
      reasons: [],
    });
  });

  it("requires every record when a survey repeats a qualification id", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1), { qualifications: [q(5, "1", "2"), q(5, "2", "3")], quotas: [] });
    expect(ids(matcher, { answers: { "5": ["1"] } })).toEqual([]);
    expect(ids(matcher, { answers: { "5": ["2"] } })).toEqual([1]);
  });

  it("reads Lucid's quota condition names and counts an unreadable closed quota as holding everyone", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1), {
      qualifications: [],
      quotas: [{ QuotaId: 1, Remaining: 0, Conditions: [{ QuestionID: 43, PreCodes: [2] }] }],
    });
    matcher.upsert(survey(2), {
      qualifications: [],
      quotas: [{ QuotaId: 2, Remaining: 0, Conditions: [{ Something: "else" }] }],
    });
    expect(ids(matcher, { answers: { "43": ["1"] } })).toEqual([1]);
    expect(ids(matcher, { answers: { "43": ["2"] } })).toEqual([]);
  });

  it("treats answer keys as plain names, never as object properties", () => {
    const matcher = new SurveyMatcher();
    matcher.upsert(survey(1), { qualifications: [q(1, "1")], quotas: [] });
    const answers = JSON.parse('{"__proto__": ["1"], "constructor": ["1"]}') as Record<string, string[]>;
    expect(ids(matcher, { answers })).toEqual([]);
    expect(ids(matcher, { answers: new Map([["1", ["1"]]]) })).toEqual([1]);
  });

  it("refuses a limit outside 1 to 5000", () => {
    const matcher = new SurveyMatcher();
    for (const limit of [0, 5001, 1.5]) expect(() => matcher.match({ answers: {}, limit })).toThrow(RangeError);
    expect(matcher.match({ answers: {}, limit: 5000 }).surveyIds).toEqual([]);
  });

  it("reads a full survey of @sds/schemas at upsert and keeps none of its objects", () => {
    const matcher = new SurveyMatcher();
    const full: Survey = {
      ...survey(77),
      Name: "Full",
      Loi: "10",
      StudyTypeId: 1,
      Completes: 0,
      SurveyUrl: "https://s.example/77",
      LastUpdatedOnUTC: "2026-11-23T00:00:00.000Z",
      Has_Qualifications: false,
      Has_Quotas: false,
      Has_Survey_Groups: false,
      IndustryId: 1,
      CollectPii: false,
      BuyerId: 1,
      StartDate: "2026-11-23T00:00:00Z",
      EndDate: "2026-12-23T00:00:00Z",
      Qual_LastUpdatedOnUTC: "2026-11-23T00:00:00Z",
      Quota_LastUpdatedOnUTC: "2026-11-23T00:00:00Z",
      Revenue: 1,
      IncidentRate: 50,
      LengthOfInterview: 10,
    };
    const qualifications = [q(43, "1")];
    matcher.upsert(full, { qualifications, quotas: [] });
    matcher.upsert(survey(78, { Cpi: "2.00" }), { qualifications: [], quotas: [] });
    // What was upserted is read once, not held: changing the objects afterwards changes nothing.
    Object.assign(full, { Cpi: "9.00", LanguageId: 2, MobileAllowed: false });
    qualifications[0] = q(43, "2");
    expect(matcher.match({ answers: { "43": ["1"] } })).toEqual({ surveyIds: [78, 77], eligible: 2 });
    expect(matcher.explain(77, { answers: { "43": ["1"] }, languageId: 1, device: "mobile" })).toEqual({
      surveyId: 77,
      eligible: true,
      reasons: [],
    });
  });

  it("grows past its first slots and reuses freed ones", () => {
    const matcher = new SurveyMatcher();
    for (let id = 1; id <= 3000; id++)
      matcher.upsert(survey(id, { Cpi: String(id) }), { qualifications: [q(1, String(id % 7))], quotas: [] });
    for (let id = 1; id <= 3000; id += 2) matcher.remove(id);
    for (let id = 5001; id <= 5100; id++)
      matcher.upsert(survey(id, { Cpi: "0.01" }), { qualifications: [], quotas: [] });
    const result = matcher.match({ answers: { "1": ["3"] }, limit: 5000 });
    const expected = Array.from({ length: 1500 }, (_, index) => 3000 - index * 2).filter((id) => id % 7 === 3);
    expect(result.surveyIds).toEqual([...expected, ...Array.from({ length: 100 }, (_, index) => 5001 + index)]);
  });
});
