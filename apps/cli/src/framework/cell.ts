/**
 * A value as a table cell: scalars as themselves, lists of scalars joined with commas,
 * anything nested as compact JSON, absent as empty.
 */
export function tableCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== "object"))
    return value.map(tableCell).join(", ");
  return JSON.stringify(value);
}

/**
 * A value as a CSV field: the text a table shows (scalars as themselves, lists of scalars such
 * as `Devices` joined with `, `), anything nested as JSON. A spreadsheet user reads the same
 * `desktop, mobile` as a terminal user; programs wanting exact structure use JSON or NDJSON.
 */
export function csvCell(value: unknown): string {
  return tableCell(value);
}

/**
 * The leaves of a nested value as dotted paths (`RedirectUrls.CompleteUrl`), for showing one
 * document as CSV rows. Arrays of scalars stay whole; arrays of objects are indexed.
 */
export function flattenDocument(value: unknown, prefix = ""): [string, unknown][] {
  if (value === null || typeof value !== "object") return [[prefix, value]];
  if (Array.isArray(value)) {
    if (value.every((item) => item === null || typeof item !== "object")) return [[prefix, value]];
    return value.flatMap((item, index) => flattenDocument(item, prefix === "" ? String(index) : `${prefix}.${index}`));
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return [[prefix, value]];
  return entries.flatMap(([key, item]) => flattenDocument(item, prefix === "" ? key : `${prefix}.${key}`));
}
