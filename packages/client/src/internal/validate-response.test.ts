import { SurveyListResponse, strict } from "@sds/schemas";
import { buildSurveys } from "@sds/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { schemaParser } from "./validate-response.ts";

const parseList = schemaParser(SurveyListResponse);
const surveyFields = Object.keys(SurveyListResponse.shape.Surveys.element.shape);

/** Any JSON value a broken or changed upstream could put in a field. */
const jsonValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant("2026-11-22T10:00:00.000Z"),
  fc.constant("https://surveys.example/s/1"),
  fc.constant("1.50"),
  fc.array(fc.integer(), { maxLength: 2 }),
);

/** A valid list, then some surveys changed: a field set to any value or removed, or an unknown field added. */
const mutatedList = fc
  .record({
    seed: fc.integer({ min: 1, max: 1000 }),
    changes: fc.array(
      fc.record({
        survey: fc.nat(),
        field: fc.oneof(fc.constantFrom(...surveyFields), fc.constantFrom("Unknown", "Extra_Field")),
        value: fc.option(jsonValue, { nil: undefined }),
      }),
      { maxLength: 3 },
    ),
  })
  .map(({ seed, changes }) => {
    const surveys: Record<string, unknown>[] = buildSurveys(5, { seed }).map((survey) => ({ ...survey }));
    for (const { survey, field, value } of changes) {
      const index = survey % surveys.length;
      const target = surveys[index];
      if (!target) continue;
      surveys[index] =
        value === undefined
          ? Object.fromEntries(Object.entries(target).filter(([key]) => key !== field))
          : { ...target, [field]: value };
    }
    // Through JSON, as a response body would come.
    return JSON.parse(
      JSON.stringify({
        status: "ok",
        hasError: false,
        messages: [],
        error: { errorCode: "" },
        Surveys: surveys,
        SupplierId: 1001,
      }),
    ) as unknown;
  });

describe("schemaParser", () => {
  it("accepts and rejects exactly what zod's own parser does, loose and strict, with the same value", () => {
    fc.assert(
      fc.property(mutatedList, (body) => {
        for (const [mode, schema] of [
          ["loose", SurveyListResponse],
          ["strict", strict(SurveyListResponse)],
        ] as const) {
          const expected = schema.safeParse(body);
          const actual = parseList(body, mode);
          expect(actual.success).toBe(expected.success);
          if (actual.success && expected.success) expect(actual.data).toEqual(expected.data);
          if (!actual.success && !expected.success)
            expect(actual.issues.map((issue) => issue.path)).toEqual(expected.error.issues.map((issue) => issue.path));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("returns the body unchecked with validation off", () => {
    const body = { anything: true };
    expect(parseList(body, "off")).toEqual({ success: true, data: body });
  });
});
