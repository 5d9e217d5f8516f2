import { Survey, SurveyQualification, SurveyQuota } from "@sds/schemas";
import { fakeErrorCodes } from "../fake/constants.ts";
import type { QualificationInit } from "../fake/types.ts";
import { ControlError } from "./control-error.ts";
import { describeIssue } from "./request-body.ts";

/*
 * Checks of what tests hand to the control methods: a fake that stored a malformed survey by
 * accident would make a client look broken. Each failure lists every issue, field by field.
 */

/** Throws a 400 {@link ControlError} unless the survey parses with the `Survey` schema. */
export function checkSurvey(survey: Survey): void {
  const result = Survey.safeParse(survey);
  if (!result.success) {
    throw new ControlError(
      400,
      fakeErrorCodes.validationFailed,
      `survey ${String(survey.SurveyId)} is invalid`,
      result.error.issues.map(describeIssue),
    );
  }
}

/** The records with `SurveyId` and a default `LastUpdatedOnUTC` filled in, each checked. */
export function qualificationRecords(
  surveyId: number,
  updatedAt: string,
  inits: readonly QualificationInit[],
): SurveyQualification[] {
  return inits.map((init, index) => {
    const result = SurveyQualification.safeParse({ LastUpdatedOnUTC: updatedAt, ...init, SurveyId: surveyId });
    if (!result.success) {
      throw new ControlError(
        400,
        fakeErrorCodes.validationFailed,
        `qualification ${index} is invalid`,
        result.error.issues.map(describeIssue),
      );
    }
    return result.data;
  });
}

/** The quotas, each checked with the `SurveyQuota` schema. */
export function quotaRecords(quotas: readonly SurveyQuota[]): SurveyQuota[] {
  return quotas.map((quota, index) => {
    const result = SurveyQuota.safeParse(quota);
    if (!result.success) {
      throw new ControlError(
        400,
        fakeErrorCodes.validationFailed,
        `quota ${index} is invalid`,
        result.error.issues.map(describeIssue),
      );
    }
    return result.data;
  });
}
