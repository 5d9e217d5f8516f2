import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSurveyList, Survey } from "./index.ts";
import { surveyList } from "../test/fixtures.ts";

const isoMillis = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true })
  .map((date) => date.toISOString());
const isoSeconds = isoMillis.map((value) => value.replace(/\.\d{3}Z$/, "Z"));
const decimal = fc
  .tuple(fc.nat({ max: 500 }), fc.nat({ max: 99 }))
  .map(([whole, cents]) => `${whole}.${String(cents).padStart(2, "0")}`);

/** Any survey the spec allows. */
const arbitrarySurvey = fc.record({
  SurveyId: fc.nat(),
  Name: fc.string(),
  Cpi: decimal,
  Ir: decimal,
  Loi: fc.nat({ max: 120 }).map(String),
  StudyTypeId: fc.nat(),
  Completes: fc.nat(),
  LanguageId: fc.nat(),
  SurveyUrl: fc.webUrl({ withQueryParameters: true }),
  DesktopAllowed: fc.boolean(),
  MobileAllowed: fc.boolean(),
  TabletAllowed: fc.boolean(),
  LastUpdatedOnUTC: isoMillis,
  Has_Qualifications: fc.boolean(),
  Has_Quotas: fc.boolean(),
  Has_Survey_Groups: fc.boolean(),
  IndustryId: fc.nat(),
  CollectPii: fc.boolean(),
  BuyerId: fc.nat(),
  StartDate: isoSeconds,
  EndDate: isoSeconds,
  Qual_LastUpdatedOnUTC: isoSeconds,
  Quota_LastUpdatedOnUTC: isoMillis,
  Revenue: fc.double({ noNaN: true, noDefaultInfinity: true }),
  IncidentRate: fc.double({ min: 0, max: 100, noNaN: true }),
  LengthOfInterview: fc.double({ min: 0, max: 120, noNaN: true }),
});

describe("round trips", () => {
  it("parses any spec-valid survey, after JSON, to exactly what was sent", () => {
    fc.assert(
      fc.property(arbitrarySurvey, (survey) => {
        const wire: unknown = JSON.parse(JSON.stringify(survey));
        expect(Survey.parse(wire)).toEqual(wire);
      }),
    );
  });

  it("splits any list into exactly its valid and invalid items", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(arbitrarySurvey, fc.anything()), { maxLength: 30 }), (items) => {
        const result = parseSurveyList(JSON.parse(JSON.stringify(surveyList(items))));
        if (!result.success) throw result.error;
        expect(result.data.Surveys.length + result.invalid.length).toBe(items.length);
      }),
    );
  });
});
