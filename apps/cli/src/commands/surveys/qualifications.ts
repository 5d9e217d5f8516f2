import { defineSurveyRecordsCommand } from "./survey-records.ts";

/** `sds surveys qualifications ID`: the survey's qualification records, as the service sends them. */
export const command = defineSurveyRecordsCommand({
  description:
    "Lists the qualification records of a survey (Get Survey Qualifications) as the service sends them: QualificationId, QualificationTypeId, OptionIds and OptionCodes. `sds surveys show ID` resolves the options to text. Works for closed surveys too, as far as the service answers.",
  examples: [
    { command: "surveys qualifications 12345", description: "The survey's qualification records" },
    { command: "surveys qualifications 12345 -o json", description: "As JSON" },
  ],
  fetch: (client, surveyId, signal) => client.surveys.qualifications(surveyId, { signal }),
  listField: "Qualifications",
  preferredColumns: ["QualificationId", "QualificationTypeId", "OptionIds", "OptionCodes", "LastUpdatedOnUTC"],
  emptyMessage: (surveyId) => `Survey ${surveyId} has no qualifications.`,
});
