import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSurveyId } from "./survey-query.ts";
import { isSurveyId } from "../survey-index/survey-id.ts";

describe("the survey id rule", () => {
  it("accepts positive safe integers only", () => {
    expect([1, 42, Number.MAX_SAFE_INTEGER].map(isSurveyId)).toEqual([true, true, true]);
    expect(
      [0, -5, 1.5, Number.MAX_SAFE_INTEGER + 1, Number("12345678901234567890"), Number.NaN, "77", null].map(isSurveyId),
    ).toEqual(Array(8).fill(false));
  });

  it("is the rule the read API applies to /v1/surveys/:id: what ingest stores, the API serves, and nothing else", () => {
    const accepts = (text: string) => {
      try {
        parseSurveyId(text);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }),
          fc.constantFrom(0n, 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n),
        ),
        (value) => {
          const text = value.toString();
          expect(accepts(text)).toBe(isSurveyId(Number(text)) && BigInt(Number(text)) === value);
        },
      ),
      { numRuns: 500 },
    );
  });
});
