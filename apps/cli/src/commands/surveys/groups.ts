import { defineSurveyRecordsCommand } from "./survey-records.ts";

/** `sds surveys groups ID`: the survey's groups. */
export const command = defineSurveyRecordsCommand({
  description:
    "Lists the survey groups of a survey (Get Survey Groups). The operation is not in the spec and its path is a guess; records are shown with whatever fields the service sends.",
  examples: [{ command: "surveys groups 12345", description: "The survey's groups" }],
  fetch: (client, surveyId, signal) => client.surveys.groups(surveyId, { signal }),
  listField: "SurveyGroups",
  emptyMessage: (surveyId) => `Survey ${surveyId} belongs to no survey group.`,
});
