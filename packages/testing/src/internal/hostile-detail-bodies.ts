import { API_BASE_PATH, fakeErrorCodes } from "../fake/constants.ts";
import type { HostileScenario, MalformedBodyKind } from "../hostile/scenarios.ts";
import { errorResponse } from "./envelope.ts";
import { corruptResponse } from "./fault-responses.ts";
import { HTML_PAGE } from "./hostile-bodies.ts";
import { operationRouter } from "./operation-router.ts";

/*
 * The hostile front's `malformed-survey-groups` and `malformed-recontact-respondents`
 * scenarios: the per-survey bodies a sync service must survive without losing what it knew.
 */

const targets = {
  "malformed-survey-groups": { operation: "getSurveyGroups", listKey: "SurveyGroups" },
  "malformed-recontact-respondents": { operation: "listRecontactRespondents", listKey: "Respondents" },
} as const;

/**
 * The response a malformed-body scenario puts in place of the fake's `response` to `request`,
 * or `undefined` when the scenario does not apply to it (another operation or survey, or no such
 * scenario). Body rewrites apply to 200 answers only; `not-found` to every answer.
 */
export async function reshapeDetailResponse(
  request: Request,
  response: Response,
  scenario: HostileScenario | undefined,
): Promise<Response | undefined> {
  if (scenario?.kind !== "malformed-survey-groups" && scenario?.kind !== "malformed-recontact-respondents")
    return undefined;
  const target = targets[scenario.kind];
  const path = new URL(request.url).pathname;
  if (!path.startsWith(`${API_BASE_PATH}/`)) return undefined;
  const route = operationRouter.match(request.method, path.slice(API_BASE_PATH.length));
  if (route.kind !== "matched" || route.id !== target.operation) return undefined;
  if (scenario.surveyIds && !scenario.surveyIds.includes(Number(route.params.surveyId))) return undefined;
  if (scenario.body === "not-found")
    return errorResponse(404, fakeErrorCodes.routeNotFound, [`No operation at ${request.method} ${path}.`]);
  if (response.status !== 200) return undefined;
  return malformed(response, scenario.body, target.listKey);
}

async function malformed(
  response: Response,
  body: Exclude<MalformedBodyKind, "not-found">,
  listKey: "SurveyGroups" | "Respondents",
): Promise<Response> {
  switch (body) {
    case "html":
      return new Response(HTML_PAGE, { status: 200, headers: { "content-type": "text/html; charset=utf-8" } });
    case "truncated-json":
      return corruptResponse(response, { kind: "truncated-json", keep: 0.6 });
    case "wrong-types": {
      const parsed = JSON.parse(await response.text()) as Record<string, unknown>;
      const items = Array.isArray(parsed[listKey]) ? (parsed[listKey] as Record<string, unknown>[]) : [];
      parsed[listKey] = listKey === "SurveyGroups" ? wrongGroups(items) : wrongRespondents(items);
      const headers = new Headers(response.headers);
      headers.delete("content-length");
      return new Response(JSON.stringify(parsed), { status: 200, headers });
    }
  }
}

/** Each group with its id as a string and its surveys as one comma-separated string; then a negative, fractional and null group. */
function wrongGroups(groups: readonly Record<string, unknown>[]): unknown[] {
  return [
    ...groups.map((group) => ({
      SurveyGroupID: String(group.SurveyGroupID),
      SurveyGroupSurveys: (group.SurveyGroupSurveys as number[]).join(","),
    })),
    { SurveyGroupID: -3, SurveyGroupSurveys: [1.5] },
    null,
    42,
  ];
}

/** Each respondent with a number for `PID` and a string for `IsActive`; then null and a number as items. */
function wrongRespondents(respondents: readonly Record<string, unknown>[]): unknown[] {
  return [
    ...respondents.map((respondent, index) => ({
      PID: index + 1,
      IsActive: respondent.IsActive === true ? "yes" : "no",
    })),
    null,
    42,
  ];
}
