import { operationPathProblem, type OperationId } from "@sds/client";
import { SettingProblem, type PlainSetting } from "../common/setting-parsers.ts";

/*
 * `SDS_OPERATION_PATHS`: where the upstream serves an operation when it is not at the path of the
 * operations table (@sds/schemas). Get Survey Groups, Get ReContact Respondents and Get Survey
 * Stats are not in the spec and their paths are guesses, so an operator must be able to fix a
 * deployment that answers 404 on them without a new release. The overrides go to every client
 * sds-sync makes and to the matcher that counts upstream requests by operation.
 */

/** Paths that replace those of the operations table, by operation id, with the same `{placeholders}`. */
export type OperationPaths = Readonly<Partial<Record<OperationId, string>>>;

/**
 * Reads `operationId=/path` pairs separated by commas (whitespace around items and `=` allowed,
 * empty items skipped). Each path is checked by `@sds/client`'s own rule (`operationPathProblem`:
 * a known operation, a leading `/`, no query or fragment, the operation's placeholders), the one
 * `createClient()` applies, so nothing this accepts fails later when the clients are made.
 *
 * @throws SettingProblem naming the item at fault.
 * @example
 * ```ts
 * parseOperationPaths("getSurveyGroups=/groups/{surveyId}, getSurveyStats=/stats/{surveyId}");
 * // { getSurveyGroups: "/groups/{surveyId}", getSurveyStats: "/stats/{surveyId}" }
 * ```
 */
export function parseOperationPaths(raw: string): OperationPaths {
  // Keyed by what the operator typed: a Map, so an id such as `constructor` is only a name.
  const items = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const part of raw.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const equals = item.indexOf("=");
    const id = item.slice(0, Math.max(equals, 0)).trim();
    const path = item.slice(equals + 1).trim();
    if (equals === -1 || id === "" || path === "")
      throw new SettingProblem(`must be a comma list of operationId=/path, got ${JSON.stringify(item)}`);
    const earlier = items.get(id);
    if (earlier !== undefined)
      throw new SettingProblem(`names ${id} twice, got ${JSON.stringify(earlier)} and ${JSON.stringify(item)}`);
    const problem = operationPathProblem(id, path);
    if (problem !== undefined) throw new SettingProblem(`${problem.message}, got ${JSON.stringify(item)}`);
    items.set(id, item);
    paths.set(id, path);
  }
  return Object.fromEntries(paths);
}

/** The row of `SDS_OPERATION_PATHS` in the configuration table (config/config.ts). */
export const operationPathsSetting = {
  variable: "SDS_OPERATION_PATHS",
  description:
    "Comma list of operationId=/path: where the upstream serves an operation instead of its default path, relative to SDS_BASE_URL and with the same {placeholders}, such as getSurveyGroups=/groups/{surveyId}. For the undocumented operations, whose paths are guesses: getSurveyGroups, listRecontactRespondents, getSurveyStats (the ids are those of the operations table of @sds/schemas). Every upstream request uses them and is counted under its operation.",
  parse: parseOperationPaths,
  fallback: { kind: "unset" },
} as const satisfies PlainSetting<OperationPaths>;
