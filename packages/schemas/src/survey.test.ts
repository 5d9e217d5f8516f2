import { describe, expect, it } from "vitest";
import { strict, Survey, SurveyListResponse } from "./index.ts";
import { surveyList, validSurvey } from "../test/fixtures.ts";

describe("Survey", () => {
  it("accepts a survey with all 26 fields at their wire types", () => {
    expect(Survey.parse(validSurvey)).toEqual(validSurvey);
    expect(Object.keys(validSurvey)).toHaveLength(26);
  });

  it("keeps fields it does not know, so a new upstream field breaks no user", () => {
    const parsed = Survey.parse({ ...validSurvey, CountryCode: "US" });
    expect(parsed).toMatchObject({ CountryCode: "US" });
  });

  it("reports unknown fields under the strict variant", () => {
    const result = strict(Survey).safeParse({ ...validSurvey, CountryCode: "US" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["CountryCode"] });
  });

  it.each([
    ["Cpi as a number", { Cpi: 2.5 }, ["Cpi"]],
    ["Ir as words", { Ir: "thirty" }, ["Ir"]],
    ["Loi missing", { Loi: undefined }, ["Loi"]],
    ["SurveyId as a string", { SurveyId: "1001" }, ["SurveyId"]],
    ["SurveyId fractional", { SurveyId: 10.5 }, ["SurveyId"]],
    ["LastUpdatedOnUTC without milliseconds", { LastUpdatedOnUTC: "2026-11-20T08:15:30Z" }, ["LastUpdatedOnUTC"]],
    ["StartDate not a date", { StartDate: "yesterday" }, ["StartDate"]],
    ["EndDate in month 13", { EndDate: "2026-13-01T00:00:00Z" }, ["EndDate"]],
    ["EndDate at hour 24", { EndDate: "2026-12-01T24:00:00Z" }, ["EndDate"]],
    ["a date with no time", { Qual_LastUpdatedOnUTC: "2026-12-01" }, ["Qual_LastUpdatedOnUTC"]],
    [
      "LastUpdatedOnUTC with four fractional digits",
      { LastUpdatedOnUTC: "2026-11-20T08:15:30.1234Z" },
      ["LastUpdatedOnUTC"],
    ],
    ["SurveyUrl not a URL", { SurveyUrl: "not a url" }, ["SurveyUrl"]],
    ["DesktopAllowed as 1", { DesktopAllowed: 1 }, ["DesktopAllowed"]],
    ["Revenue as a string", { Revenue: "2.5" }, ["Revenue"]],
  ])("rejects %s, naming the field", (_label, patch, path) => {
    const result = Survey.safeParse({ ...validSurvey, ...patch });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toContainEqual(path);
  });

  it("accepts dates without an offset, which .NET services often send", () => {
    expect(Survey.safeParse({ ...validSurvey, EndDate: "2026-12-31T23:59:59" }).success).toBe(true);
  });

  it("accepts an explicit offset and fractional seconds on the other dates", () => {
    expect(
      Survey.safeParse({
        ...validSurvey,
        StartDate: "2026-11-01T02:00:00.5+02:00",
        LastUpdatedOnUTC: "2026-11-20T08:15:30.123",
      }).success,
    ).toBe(true);
  });
});

describe("SurveyListResponse", () => {
  it("requires the envelope fields the spec says every response carries", () => {
    const { hasError: _hasError, ...withoutHasError } = surveyList([validSurvey]);
    expect(SurveyListResponse.safeParse(withoutHasError).success).toBe(false);
    expect(SurveyListResponse.safeParse(surveyList([validSurvey])).success).toBe(true);
  });
});
