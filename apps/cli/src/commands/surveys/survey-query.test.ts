import { buildSurvey } from "@sds/testing";
import { describe, expect, it } from "vitest";
import { filterSurveys, parseSortKeys, pickSurveyFields, resolveSurveyField, sortSurveys } from "./survey-query.ts";

const survey = (SurveyId: number, Cpi: string, Loi: string) =>
  buildSurvey({ SurveyId, Cpi, Loi, DesktopAllowed: true, MobileAllowed: SurveyId % 2 === 0, TabletAllowed: false });

describe("survey queries", () => {
  const surveys = [survey(1, "10.00", "5"), survey(2, "9.50", "20"), survey(3, "2", "15")];

  it("compares decimal strings as numbers, not text", () => {
    expect(sortSurveys(surveys, parseSortKeys("cpi")).map((item) => item.SurveyId)).toEqual([3, 2, 1]);
    expect(filterSurveys(surveys, { minCpi: 9.5 }).map((item) => item.SurveyId)).toEqual([1, 2]);
  });

  it("reads sort keys with :desc, a leading dash and several fields", () => {
    expect(parseSortKeys("cpi:desc,-loi,id")).toEqual([
      { field: "Cpi", descending: true },
      { field: "Loi", descending: true },
      { field: "SurveyId", descending: false },
    ]);
    expect(() => parseSortKeys("cpi:up")).toThrow("--sort: direction must be asc or desc");
  });

  it("requires every device given", () => {
    expect(filterSurveys(surveys, { devices: ["desktop", "mobile"] }).map((item) => item.SurveyId)).toEqual([2]);
  });

  it("resolves field names without regard to case, and computes Devices", () => {
    expect(resolveSurveyField("has_quotas", "--fields")).toBe("Has_Quotas");
    expect(() => resolveSurveyField("Popularity", "--fields")).toThrow('--fields: unknown survey field "Popularity"');
    expect(pickSurveyFields(surveys[1] as (typeof surveys)[number], ["SurveyId", "Devices"])).toEqual({
      SurveyId: 2,
      Devices: ["desktop", "mobile"],
    });
  });
});
