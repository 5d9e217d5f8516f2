/**
 * The one rule for survey ids, for what the cycle accepts from upstream and what the read API
 * accepts in a path: a positive safe integer. An id outside it (`-5`, `0`, `1.5`, or
 * `12345678901234567890`, which JavaScript reads as …567000) is quarantined at ingest and
 * answered 400 by the API, so nothing is stored that cannot be read back by its id.
 */
export const SURVEY_ID_RANGE = { min: 1, max: Number.MAX_SAFE_INTEGER } as const;

/**
 * Whether `value` is a survey id this service stores and serves.
 *
 * @example
 * ```ts
 * isSurveyId(42); // true
 * isSurveyId(-5); // false
 * isSurveyId(12345678901234567890); // false: not a safe integer
 * ```
 */
export function isSurveyId(value: unknown): value is number {
  return (
    typeof value === "number" &&
    Number.isSafeInteger(value) &&
    value >= SURVEY_ID_RANGE.min &&
    value <= SURVEY_ID_RANGE.max
  );
}
