import { z } from "zod";
import { observedEnvelopeShape } from "./envelope.ts";
import { integer } from "./internal/wire.ts";

/*
 * Stats, groups and re-contacts: named by the spec, never shown anywhere. Each response is an
 * open record that keeps every field; the names typed here are guesses that follow the pattern
 * of the other responses, all optional.
 */

/**
 * Response of Get Survey Stats (unverified: no public body seen). Other marketplaces send
 * `EffectiveEPC`, `SystemConversion` and `LengthOfInterview`, flat or by scope; read them with
 * `parseSurveyStats`.
 */
export const SurveyStatsResponse = z.looseObject({
  ...observedEnvelopeShape,
  SurveyId: integer().optional(),
  Stats: z.unknown().optional(),
});
export type SurveyStatsResponse = z.infer<typeof SurveyStatsResponse>;

/**
 * One survey group (unverified): Lucid's `{ SurveyGroupID, SurveyGroupSurveys }` or a variant;
 * every field is kept. Read ids with `parseSurveyGroups`.
 */
export const SurveyGroup = z.looseObject({});
export type SurveyGroup = z.infer<typeof SurveyGroup>;

/** Response of Get Survey Groups (unverified: no public body seen). */
export const SurveyGroupsResponse = z.looseObject({
  ...observedEnvelopeShape,
  SurveyId: integer().optional(),
  SurveyGroups: z.array(SurveyGroup).optional(),
});
export type SurveyGroupsResponse = z.infer<typeof SurveyGroupsResponse>;

/**
 * One re-contact respondent (unverified): Lucid's `{ PID, IsActive }` or a variant; every field
 * is kept. Read it with `parseRecontactRespondents`.
 */
export const RecontactRespondent = z.looseObject({});
export type RecontactRespondent = z.infer<typeof RecontactRespondent>;

/**
 * Response of Get ReContact Respondents (unverified: no public body seen). The list is
 * `Respondents` (respondent ids or records) or Lucid's `SurveyQualifiedRespondents` (records);
 * `parseRecontactRespondents` reads either.
 */
export const RecontactRespondentsResponse = z.looseObject({
  ...observedEnvelopeShape,
  SurveyId: integer().optional(),
  Respondents: z.array(z.union([z.string(), RecontactRespondent])).optional(),
  SurveyQualifiedRespondents: z.array(RecontactRespondent).optional(),
});
export type RecontactRespondentsResponse = z.infer<typeof RecontactRespondentsResponse>;
