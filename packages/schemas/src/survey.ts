import { z } from "zod";
import { envelopeShape } from "./envelope.ts";
import { absoluteUrl, decimalString, integer, isoDateTime, isoDateTimeMillis } from "./internal/wire.ts";

/**
 * A live survey, as one element of the `Surveys` array of Get Surveys. All 26 fields of the
 * spec, with their wire types: `Cpi`, `Ir` and `Loi` are decimal strings, dates are ISO 8601
 * strings. Unknown fields are kept. Use {@link @sds/schemas!surveyNumbers | surveyNumbers} and
 * {@link @sds/schemas!surveyDates | surveyDates} for numbers and `Date`s (package-qualified links,
 * so they resolve where `@sds/client` re-exports this type too).
 */
export const Survey = z.looseObject({
  SurveyId: integer(),
  Name: z.string(),
  /** Cost per interview, a decimal string such as `"2.50"`. Currency: not shown. */
  Cpi: decimalString(),
  /** Incidence rate, a decimal string. Unit (percent or ratio): not shown. */
  Ir: decimalString(),
  /** Length of interview, a decimal string. Unit (minutes, most likely): not shown. */
  Loi: decimalString(),
  StudyTypeId: integer(),
  Completes: integer(),
  LanguageId: integer(),
  SurveyUrl: absoluteUrl(),
  DesktopAllowed: z.boolean(),
  MobileAllowed: z.boolean(),
  TabletAllowed: z.boolean(),
  /** When the survey last changed, with milliseconds. */
  LastUpdatedOnUTC: isoDateTimeMillis(),
  Has_Qualifications: z.boolean(),
  Has_Quotas: z.boolean(),
  Has_Survey_Groups: z.boolean(),
  IndustryId: integer(),
  CollectPii: z.boolean(),
  BuyerId: integer(),
  StartDate: isoDateTime(),
  EndDate: isoDateTime(),
  /** When the survey's qualifications last changed: refetch them when this moves. */
  Qual_LastUpdatedOnUTC: isoDateTime(),
  /** When the survey's quotas last changed: refetch them when this moves. */
  Quota_LastUpdatedOnUTC: isoDateTime(),
  Revenue: z.number(),
  IncidentRate: z.number(),
  LengthOfInterview: z.number(),
});
export type Survey = z.infer<typeof Survey>;

/** Response of Get Surveys: the envelope, the live surveys and the caller's supplier id. */
export const SurveyListResponse = z.looseObject({
  ...envelopeShape,
  Surveys: z.array(Survey),
  SupplierId: integer(),
});
export type SurveyListResponse = z.infer<typeof SurveyListResponse>;
