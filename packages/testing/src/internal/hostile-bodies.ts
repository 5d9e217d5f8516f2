import type { DuplicateIdsScenario, OversizeFieldScenario, WrongTypesScenario } from "../hostile/scenarios.ts";
import { outOfRangeSurveyIds } from "../hostile/scenarios.ts";

/*
 * Rewrites of a Get Surveys body, as text in and text out. The fake's body is parsed, changed and
 * written again with `Surveys` where it was; only what JSON cannot say (an id beyond 2^53) is
 * spliced in as text.
 */

type ListBody = Record<string, unknown> & { Surveys: unknown[] };

function parseList(text: string): ListBody {
  const body = JSON.parse(text) as unknown;
  if (typeof body !== "object" || body === null || !Array.isArray((body as { Surveys?: unknown }).Surveys))
    throw new Error("not a Get Surveys body");
  return body as ListBody;
}

const surveyObjects = (body: ListBody): Record<string, unknown>[] =>
  body.Surveys.filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null);

/** `{"Surveys": []}` inside the real envelope. */
export function emptyList(text: string): string {
  return JSON.stringify({ ...parseList(text), Surveys: [] });
}

/** The first `count` surveys with an absurdly long `field`. */
export function oversizeField(text: string, scenario: OversizeFieldScenario): string {
  const body = parseList(text);
  const filler = "x".repeat(scenario.bytes);
  for (const survey of surveyObjects(body).slice(0, scenario.count ?? 1)) survey[scenario.field ?? "Name"] = filler;
  return JSON.stringify(body);
}

/** The first `count` surveys repeated at the end, changed so the copy is distinguishable. */
export function duplicateIds(text: string, scenario: DuplicateIdsScenario): string {
  const body = parseList(text);
  const copies = surveyObjects(body)
    .slice(0, scenario.count ?? 1)
    .map((survey) => ({
      ...survey,
      Name: `${String(survey.Name)} (copy)`,
      LastUpdatedOnUTC: new Date(Date.parse(String(survey.LastUpdatedOnUTC)) + 1000).toISOString(),
    }));
  body.Surveys.push(...copies);
  return JSON.stringify(body);
}

/** Copies of the first survey under ids that are no positive safe integer, written as-is. */
export function outOfRangeIds(text: string): string {
  const body = parseList(text);
  const [template] = surveyObjects(body);
  if (!template) return text;
  outOfRangeSurveyIds.forEach((_, index) => body.Surveys.push({ ...template, SurveyId: `__hostile_id_${index}__` }));
  let out = JSON.stringify(body);
  outOfRangeSurveyIds.forEach((id, index) => {
    out = out.replace(`"__hostile_id_${index}__"`, id);
  });
  return out;
}

/** Wrong JSON types in the first `count` surveys (ids kept), plus items that are no survey. */
export function wrongTypes(text: string, scenario: WrongTypesScenario): string {
  const body = parseList(text);
  for (const survey of surveyObjects(body).slice(0, scenario.count ?? 1)) {
    survey.Cpi = Number(survey.Cpi);
    survey.LanguageId = String(survey.LanguageId);
    survey.MobileAllowed = "yes";
    survey.Qual_LastUpdatedOnUTC = 0;
  }
  body.Surveys.push(null, 42, "survey");
  return JSON.stringify(body);
}

/** The list complete, then `hasError: true` at the very end. */
export function errorAtEnd(text: string): string {
  const { hasError: _hasError, messages: _messages, Surveys, ...rest } = parseList(text);
  return JSON.stringify({
    ...rest,
    Surveys,
    hasError: true,
    messages: ["The list is incomplete: a backend shard failed."],
  });
}

/** A page that is not JSON at all. */
export const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form action="/login"><input name="user"></form></body></html>\n';
