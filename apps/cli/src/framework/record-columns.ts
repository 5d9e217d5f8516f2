import type { RecordColumn } from "./output.ts";

/**
 * Table columns for records whose shape the spec does not show (quotas, groups, stats,
 * re-contacts, collections): every field any record has, in the order first seen, `preferred`
 * ones first. Numeric columns are right-aligned.
 */
export function inferColumns(rows: readonly object[], preferred: readonly string[] = []): RecordColumn<object>[] {
  const names = new Set<string>(preferred.filter((name) => rows.some((row) => Object.hasOwn(row, name))));
  for (const row of rows) for (const name of Object.keys(row)) names.add(name);
  return [...names].map((name) => {
    const values = rows
      .map((row) => (row as Record<string, unknown>)[name])
      .filter((value) => value !== undefined && value !== null);
    const numeric = values.length > 0 && values.every((value) => typeof value === "number");
    return { header: name, align: numeric ? "right" : "left" };
  });
}
