import { z } from "zod";
import { envelopeShape } from "./envelope.ts";
import { integer, isoDateTime } from "./internal/wire.ts";

/** One qualification record attached to a survey. */
export const SurveyQualification = z.looseObject({
  SurveyId: integer(),
  LastUpdatedOnUTC: isoDateTime(),
  QualificationId: integer(),
  QualificationTypeId: integer(),
  OptionIds: z.array(integer()),
  OptionCodes: z.array(z.string()),
});
export type SurveyQualification = z.infer<typeof SurveyQualification>;

/** Response of Get Survey Qualifications: the records of the survey named by `SurveyId` (Rule 2). */
export const SurveyQualificationsResponse = z.looseObject({
  ...envelopeShape,
  Qualifications: z.array(SurveyQualification),
  SurveyId: integer(),
});
export type SurveyQualificationsResponse = z.infer<typeof SurveyQualificationsResponse>;
