import { describe, expect, it } from "vitest";
import { parseItemwise, parseSurveyList, SurveyQualificationsResponse } from "./index.ts";
import { surveyList, validSurvey } from "../test/fixtures.ts";

describe("parseSurveyList", () => {
  it("returns the good surveys and reports the bad one with its index and path", () => {
    const surveys = Array.from({ length: 10_000 }, (_, index) => ({ ...validSurvey, SurveyId: index + 1 }));
    surveys[4_321] = { ...validSurvey, SurveyId: 4_322, Cpi: 2.5 as unknown as string };
    const result = parseSurveyList(surveyList(surveys));
    if (!result.success) throw result.error;
    expect(result.data.Surveys).toHaveLength(9_999);
    expect(result.data.Surveys.some((survey) => survey.SurveyId === 4_322)).toBe(false);
    expect(result.invalid).toHaveLength(1);
    expect(result.invalid[0]).toMatchObject({ index: 4_321, issues: [{ path: ["Cpi"], code: "invalid_type" }] });
    expect(result.invalid[0]?.item).toBe(surveys[4_321]);
  });

  it("keeps the order of the valid items", () => {
    const result = parseSurveyList(
      surveyList([{ ...validSurvey, SurveyId: 3 }, null, { ...validSurvey, SurveyId: 1 }]),
    );
    if (!result.success) throw result.error;
    expect(result.data.Surveys.map((survey) => survey.SurveyId)).toEqual([3, 1]);
    expect(result.invalid.map((item) => item.index)).toEqual([1]);
  });

  it("fails as a whole when the envelope itself is malformed", () => {
    const result = parseSurveyList({ ...surveyList([validSurvey]), Surveys: "none" });
    expect(result.success).toBe(false);
    const missingEnvelope = parseSurveyList({ Surveys: [validSurvey] });
    expect(missingEnvelope.success).toBe(false);
  });

  it("reports unknown fields as issues in strict mode and keeps them in loose mode", () => {
    const body = surveyList([{ ...validSurvey, Extra: true }]);
    const loose = parseSurveyList(body);
    const strictResult = parseSurveyList(body, { strict: true });
    if (!loose.success || !strictResult.success) throw new Error("envelope should parse");
    expect(loose.data.Surveys[0]).toMatchObject({ Extra: true });
    expect(strictResult.data.Surveys).toHaveLength(0);
    expect(strictResult.invalid[0]?.issues[0]).toMatchObject({ code: "unrecognized_keys" });
  });
});

describe("parseItemwise", () => {
  it("works for any list response, such as qualifications", () => {
    const good = {
      SurveyId: 1,
      LastUpdatedOnUTC: "2026-11-20T00:00:00Z",
      QualificationId: 1,
      QualificationTypeId: 1,
      OptionIds: [1],
      OptionCodes: ["1"],
    };
    const result = parseItemwise(SurveyQualificationsResponse, "Qualifications", {
      status: "ok",
      hasError: false,
      messages: [],
      error: { errorCode: "" },
      SurveyId: 1,
      Qualifications: [good, { ...good, OptionIds: ["x"] }],
    });
    if (!result.success) throw result.error;
    expect(result.data.Qualifications).toEqual([good]);
    expect(result.invalid[0]?.issues[0]?.path).toEqual(["OptionIds", 0]);
  });

  it("refuses a key that is not an array of the schema", () => {
    expect(() => parseItemwise(SurveyQualificationsResponse, "SurveyId", {})).toThrow(/not an array/);
  });
});
