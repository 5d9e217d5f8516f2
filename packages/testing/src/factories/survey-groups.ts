import type { Survey } from "@sds/schemas";
import { createSeededRandom, deriveSeed } from "../random.ts";
import type { SeedOptions } from "./types.ts";

/**
 * A survey group in Lucid's shape: surveys a respondent may take only one of. Every survey of
 * the group lists the same group.
 */
export type GeneratedSurveyGroup = {
  readonly SurveyGroupID: number;
  /** The ids of the group's surveys, ascending. */
  readonly SurveyGroupSurveys: number[];
};

/** Options of {@link buildSurveyGroups}. */
export interface SurveyGroupOptions extends SeedOptions {
  /** Id of the first group; the next ones count up from it. @default 7001 */
  readonly firstGroupId?: number;
}

/**
 * Groups an inventory: the surveys with `Has_Survey_Groups` are cut into groups of 2 to 5 in
 * the order given (so neighbours share groups; the last group may be smaller, a lone flagged
 * survey a group of one), about one group in four also takes the last survey of the group
 * before (a survey in two groups), and no other survey is grouped. Membership is consistent by construction: a group lists
 * each of its surveys, whichever of them is asked about.
 *
 * @example
 * ```ts
 * const groups = buildSurveyGroups(buildSurveys(200, { seed: 7 }), { seed: 7 });
 * const groupsOf = (surveyId: number) => groups.filter((group) => group.SurveyGroupSurveys.includes(surveyId));
 * ```
 */
export function buildSurveyGroups(
  surveys: readonly Pick<Survey, "SurveyId" | "Has_Survey_Groups">[],
  options: SurveyGroupOptions = {},
): GeneratedSurveyGroup[] {
  const firstGroupId = options.firstGroupId ?? 7001;
  if (!Number.isSafeInteger(firstGroupId) || firstGroupId <= 0)
    throw new RangeError(`firstGroupId must be a positive integer, got ${String(firstGroupId)}`);
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, firstGroupId, 5));
  const flagged = surveys.filter((survey) => survey.Has_Survey_Groups).map((survey) => survey.SurveyId);
  const groups: GeneratedSurveyGroup[] = [];
  for (let start = 0; start < flagged.length;) {
    const members = flagged.slice(start, start + random.int(2, 5));
    start += members.length;
    const previous = groups.at(-1)?.SurveyGroupSurveys;
    const shared = previous && random.chance(0.25) ? previous.at(-1) : undefined;
    if (shared !== undefined && !members.includes(shared)) members.push(shared);
    groups.push({
      SurveyGroupID: firstGroupId + groups.length,
      SurveyGroupSurveys: members.sort((left, right) => left - right),
    });
  }
  return groups;
}
