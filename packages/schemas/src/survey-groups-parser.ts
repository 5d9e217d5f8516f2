import { describeValue, envelopeProblem, firstField, isPositiveId, isRecord } from "./internal/body-reading.ts";

/** One survey group as the parsers read it: its id and the ids of its surveys. */
export interface ParsedSurveyGroup {
  /** The group's id. */
  readonly groupId: number;
  /** The surveys of the group, ascending, each once. A respondent may enter only one of them. */
  readonly surveyIds: readonly number[];
}

/** What {@link parseSurveyGroups} returns: the groups, or why the body cannot be read. */
export type ParseSurveyGroupsResult =
  | { readonly ok: true; readonly groups: readonly ParsedSurveyGroup[] }
  | { readonly ok: false; readonly problem: string };

/** The names a group's id goes by: Lucid's, the guessed one, a generic one. */
const groupIdKeys = ["SurveyGroupID", "SurveyGroupId", "Id"] as const;
/** The names a group's survey list goes by. */
const memberKeys = ["SurveyGroupSurveys", "SurveyIds", "Surveys"] as const;

/**
 * Reads the body of Get Survey Groups (undocumented, so read leniently) into group ids and
 * their survey ids. Accepts `{ "SurveyGroups": [group…] }` where a group names its id
 * `SurveyGroupID` (Lucid), `SurveyGroupId` or `Id`, and its surveys `SurveyGroupSurveys`
 * (Lucid), `SurveyIds` or `Surveys`, each an integer or `{ "SurveyId": integer }`; other fields
 * are ignored. An empty list means no groups. Ids must be positive integers (a string, `0`, a
 * negative or fractional id is a problem, never guessed at). A group listed twice is read as
 * one with the union of its surveys. Groups come out sorted by id.
 *
 * Pure: never throws, whatever `body` is.
 *
 * @example
 * ```ts
 * const result = parseSurveyGroups({ SurveyGroups: [{ SurveyGroupID: 7, SurveyGroupSurveys: [12, 11] }] });
 * // { ok: true, groups: [{ groupId: 7, surveyIds: [11, 12] }] }
 * if (!result.ok) console.warn(`survey groups unreadable: ${result.problem}`);
 * ```
 */
export function parseSurveyGroups(body: unknown): ParseSurveyGroupsResult {
  if (!isRecord(body)) return problem(`the body is not a JSON object but ${describeValue(body)}`);
  const failed = envelopeProblem(body);
  if (failed) return problem(failed);
  const list = body["SurveyGroups"];
  if (!Array.isArray(list)) return problem(`SurveyGroups: expected a list of groups, got ${describeValue(list)}`);

  const members = new Map<number, Set<number>>();
  for (const [index, group] of (list as unknown[]).entries()) {
    const where = `SurveyGroups[${index}]`;
    if (!isRecord(group)) return problem(`${where}: expected a group object, got ${describeValue(group)}`);
    const id = firstField(group, groupIdKeys);
    if (!id) return problem(`${where}: no group id (${groupIdKeys.join(", ")})`);
    if (!isPositiveId(id.value))
      return problem(`${where}.${id.key}: expected a positive integer, got ${describeValue(id.value)}`);
    const surveys = firstField(group, memberKeys);
    if (!surveys) return problem(`${where}: no survey list (${memberKeys.join(", ")})`);
    if (!Array.isArray(surveys.value))
      return problem(`${where}.${surveys.key}: expected a list of survey ids, got ${describeValue(surveys.value)}`);

    let ids = members.get(id.value);
    if (!ids) members.set(id.value, (ids = new Set()));
    for (const [position, member] of (surveys.value as unknown[]).entries()) {
      const surveyId = isRecord(member) ? member["SurveyId"] : member;
      if (!isPositiveId(surveyId)) {
        const path = `${where}.${surveys.key}[${position}]${isRecord(member) ? ".SurveyId" : ""}`;
        return problem(`${path}: expected a positive integer survey id, got ${describeValue(surveyId)}`);
      }
      ids.add(surveyId);
    }
  }
  const groups = [...members]
    .sort(([left], [right]) => left - right)
    .map(([groupId, ids]): ParsedSurveyGroup => ({ groupId, surveyIds: [...ids].sort((left, right) => left - right) }));
  return { ok: true, groups };
}

function problem(text: string): { readonly ok: false; readonly problem: string } {
  return { ok: false, problem: text };
}
