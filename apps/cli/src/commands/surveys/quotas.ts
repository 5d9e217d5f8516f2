import { defineSurveyRecordsCommand } from "./survey-records.ts";

/** `sds surveys quotas ID`: the survey's quotas. */
export const command = defineSurveyRecordsCommand({
  description:
    "Lists the quotas of a survey (Get Survey Quotas). The operation is not in the spec: its path follows public integrations and its records are shown with whatever fields the service sends.",
  examples: [
    { command: "surveys quotas 12345", description: "The survey's quotas" },
    { command: "surveys quotas 12345 -o json | jq '.[].Conditions'", description: "Their conditions" },
  ],
  fetch: (client, surveyId, signal) => client.surveys.quotas(surveyId, { signal }),
  listField: "Quotas",
  preferredColumns: ["QuotaId", "Name"],
  emptyMessage: (surveyId) => `Survey ${surveyId} has no quotas.`,
});
