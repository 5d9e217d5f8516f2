/** Options shared by every factory. */
export interface SeedOptions {
  /** Seed of the generated values: the same seed and input give the same output. @default 1 */
  readonly seed?: number;
}

/** Options of {@link createSurveyFactory}, {@link buildSurvey} and {@link buildSurveys}. */
export interface SurveyFactoryOptions extends SeedOptions {
  /** Id of the first survey built; the next ones count up from it. @default 100001 */
  readonly firstSurveyId?: number;
  /**
   * The "now" that generated dates are spread around: `LastUpdatedOnUTC` in the 72 hours
   * before it, `StartDate` up to 30 days before that, `EndDate` 1 to 60 days after it. Fixed by
   * default so output does not depend on the day the tests run.
   * @default FACTORY_REFERENCE_TIME (2026-01-15T12:00:00.000Z)
   */
  readonly referenceTime?: Date | number;
}
