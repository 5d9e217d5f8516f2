import { describe, expect, it } from "vitest";
import { operationPathProblem } from "./operation-path.ts";

describe("operationPathProblem", () => {
  it.each([
    ["getSurveyGroups", "/groups/{surveyId}"],
    ["getSurveyStats", "/v2/surveys/{surveyId}/stats"],
    ["listRecontactRespondents", "/recontact-respondents/{surveyId}/"],
    ["getQualificationDetail", "/q/{qualificationId}/{languageId}"],
    ["listLanguages", "/collection/languages%2Dall"],
    ["getSupplierAccount", "/supplier-account"],
  ])("accepts %s at %s", (operationId, path) => {
    expect(operationPathProblem(operationId, path)).toBeUndefined();
  });

  it.each([
    ["getEverything", "/everything", "unknown-operation", /no operation "getEverything"; known: getSupplierAccount, /],
    ["constructor", "/x", "unknown-operation", /no operation "constructor"/],
    ["getSurveyGroups", "groups/{surveyId}", "not-absolute", /getSurveyGroups must start with "\/"/],
    ["getSurveyGroups", "/groups?survey={surveyId}", "query-or-fragment", /query \(\?\) or a fragment \(#\)/],
    ["getSurveyGroups", "/groups/{surveyId}#top", "query-or-fragment", /query \(\?\) or a fragment \(#\)/],
    ["getSurveyGroups", "/../v2/survey-groups/{surveyId}", "dot-segment", /"\." or "\.\." segments/],
    ["getSurveyGroups", "/x/%2E/{surveyId}", "dot-segment", /"\." or "\.\." segments/],
    ["getSurveyGroups", "/survey groups/{surveyId}", "not-a-path-character", /only letters, digits/],
    ["getSurveyGroups", "/groups/{surveyId}}", "not-a-path-character", /only letters, digits/],
    [
      "getSurveyGroups",
      "/groups",
      "placeholders",
      /must contain \{surveyId\}, each a whole segment, as \/survey-groups/,
    ],
    ["getSurveyGroups", "/groups/{id}", "placeholders", /must contain \{surveyId\}/],
    ["getSurveyGroups", "/groups/{surveyId}/{surveyId}", "placeholders", /must contain \{surveyId\}/],
    ["getSurveyGroups", "/groups/id-{surveyId}", "placeholders", /each a whole segment/],
    ["listLanguages", "/languages/{id}", "placeholders", /must contain no placeholders, as \/collection\/languages/],
  ])("refuses %s at %s (%s)", (operationId, path, code, message) => {
    const problem = operationPathProblem(operationId, path);
    expect(problem?.code).toBe(code);
    expect(problem?.message).toMatch(message);
  });
});
