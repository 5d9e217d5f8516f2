import { z } from "zod";
import type { GeneratedRecontactRespondent } from "../factories/recontact-respondents.ts";
import { fakeErrorCodes } from "../fake/constants.ts";
import type { RecontactRespondentInit, SurveyStatsInit } from "../fake/types.ts";
import { ControlError } from "./control-error.ts";
import { describeIssue } from "./request-body.ts";

/*
 * Checks of the re-contact lists and statistics tests hand to the control methods: what is set
 * is served as the service would, so it must be data the service could send. Malformed bodies
 * are the hostile upstream's job.
 */

const figure = z.number().nonnegative();
const ScopeStats = z.strictObject({
  Starts: z.int().nonnegative().optional(),
  Completes: z.int().nonnegative().optional(),
  SystemConversion: figure.max(100).optional(),
  EffectiveEPC: figure.optional(),
  LengthOfInterview: figure.optional(),
});
const StatsInit = z.strictObject({ Global: ScopeStats.optional(), Supplier: ScopeStats.optional() });
const RespondentInit = z.strictObject({ PID: z.string().trim().min(1), IsActive: z.boolean().optional() });

/** The stats, checked; a copy, so later changes to the argument do not leak in. */
export function statsRecord(stats: SurveyStatsInit): SurveyStatsInit {
  const result = StatsInit.safeParse(stats);
  if (!result.success)
    throw new ControlError(
      400,
      fakeErrorCodes.validationFailed,
      "the stats are invalid",
      result.error.issues.map(describeIssue),
    );
  return structuredClone(stats);
}

/** The respondents as served (`IsActive` filled in), checked: non-empty, distinct `PID`s. */
export function recontactRecords(respondents: readonly RecontactRespondentInit[]): GeneratedRecontactRespondent[] {
  const seen = new Set<string>();
  return respondents.map((respondent, index) => {
    const result = RespondentInit.safeParse(respondent);
    if (!result.success) {
      throw new ControlError(
        400,
        fakeErrorCodes.validationFailed,
        `respondent ${index} is invalid`,
        result.error.issues.map(describeIssue),
      );
    }
    if (seen.has(respondent.PID))
      throw new ControlError(
        400,
        fakeErrorCodes.validationFailed,
        `respondent ${index} repeats PID ${JSON.stringify(respondent.PID)}`,
      );
    seen.add(respondent.PID);
    return { PID: respondent.PID, IsActive: respondent.IsActive ?? true };
  });
}

/** A group id: a positive safe integer. */
export function checkGroupId(groupId: number): void {
  if (!Number.isSafeInteger(groupId) || groupId <= 0) {
    throw new ControlError(
      400,
      fakeErrorCodes.validationFailed,
      `a survey group id must be a positive integer, got ${JSON.stringify(groupId)}`,
    );
  }
}
