import type { SqlValue } from "../database/sql-dialect.ts";
import type { SurveyQuery } from "./store.ts";

/**
 * The WHERE clause of a survey query with `?` placeholders, shared by both stores so their
 * filtering cannot drift. A device condition is the bare boolean column, which both dialects
 * read as true or false; the change time is bound as ISO 8601 text.
 */
export function surveyQueryWhere(query: SurveyQuery): { readonly where: string; readonly params: SqlValue[] } {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  const bind = (value: SqlValue): string => {
    params.push(value);
    return "?";
  };

  if (query.status !== "all") conditions.push(`status = ${bind(query.status)}`);
  if (query.languageIds && query.languageIds.length > 0) {
    conditions.push(`language_id IN (${query.languageIds.map((id) => bind(id)).join(", ")})`);
  }
  if (query.minCpi !== undefined) conditions.push(`cpi >= ${bind(query.minCpi)}`);
  if (query.maxCpi !== undefined) conditions.push(`cpi <= ${bind(query.maxCpi)}`);
  if (query.maxLoi !== undefined) conditions.push(`loi <= ${bind(query.maxLoi)}`);
  for (const device of query.devices ?? []) conditions.push(`${device}_allowed`);
  if (query.updatedSince !== undefined) conditions.push(`changed_at >= ${bind(query.updatedSince.toISOString())}`);
  if (query.afterId !== undefined) conditions.push(`id > ${bind(query.afterId)}`);

  return { where: conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "", params };
}
