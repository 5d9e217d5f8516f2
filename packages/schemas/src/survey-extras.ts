import { z } from "zod";
import { observedEnvelopeShape } from "./envelope.ts";
import { integer } from "./internal/wire.ts";

/*
 * Stats, groups and re-contacts: named by the spec, never shown anywhere. Each response is an
 * open record that keeps every field; the names typed here are guesses that follow the pattern
 * of the other responses, all optional.
 */

/** Response of Get Survey Stats (unverified: no public body seen). */
export const SurveyStatsResponse = z.looseObject({
  ...observedEnvelopeShape,
  SurveyId: integer().optional(),
  Stats: z.unknown().optional(),
});
export type SurveyStatsResponse = z.infer<typeof SurveyStatsResponse>;

/** One survey group (unverified). */
export const SurveyGroup = z.looseObject({});
export type SurveyGroup = z.infer<typeof SurveyGroup>;

/** Response of Get Survey Groups (unverified: no public body seen). */
export const SurveyGroupsResponse = z.looseObject({
  ...observedEnvelopeShape,
  SurveyId: integer().optional(),
  SurveyGroups: z.array(SurveyGroup).optional(),
});
export type SurveyGroupsResponse = z.infer<typeof SurveyGroupsResponse>;

/** One re-contact respondent (unverified). */
export const RecontactRespondent = z.looseObject({});
export type RecontactRespondent = z.infer<typeof RecontactRespondent>;

/** Response of Get ReContact Respondents (unverified: no public body seen). */
export const RecontactRespondentsResponse = z.looseObject({
  ...observedEnvelopeShape,
  SurveyId: integer().optional(),
  Respondents: z.array(RecontactRespondent).optional(),
});
export type RecontactRespondentsResponse = z.infer<typeof RecontactRespondentsResponse>;
