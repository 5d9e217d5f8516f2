import { defineSurveyRecordsCommand } from "../surveys/survey-records.ts";

/** `sds recontacts list ID`: the re-contact respondents of a survey. */
export const command = defineSurveyRecordsCommand({
  description:
    "Lists the respondents a survey may re-contact (Get ReContact Respondents). The operation is not in the spec and its path is a guess; records are shown with whatever fields the service sends.",
  examples: [
    { command: "recontacts list 12345", description: "The survey's re-contact respondents" },
    { command: "recontacts list 12345 -o csv > recontacts.csv", description: "As CSV" },
  ],
  fetch: (client, surveyId, signal) => client.recontacts.list(surveyId, { signal }),
  listField: "Respondents",
  emptyMessage: (surveyId) => `Survey ${surveyId} has no re-contact respondents.`,
});
