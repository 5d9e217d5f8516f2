/*
 * Column values as either driver returns them, read one way. node:sqlite gives integers as
 * numbers, booleans as 0/1 and times as the ISO 8601 text they were stored as; pg gives bigint
 * and numeric as strings, booleans as booleans and timestamptz as a Date. `json` columns arrive
 * as text from both (see `postgresQuery`).
 */

/** A row of either driver. */
export type Row = Readonly<Record<string, unknown>>;

/** A time column as ISO 8601 text. */
export function toIso(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** A nullable time column as ISO 8601 text, or null. */
export function toIsoOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : toIso(value);
}

/** A time column as a Date. */
export function toDate(value: unknown): Date {
  return value instanceof Date ? new Date(value.getTime()) : new Date(String(value));
}

/** A boolean column (`true` or 1). */
export function toBool(value: unknown): boolean {
  return value === true || value === 1;
}

/** A nullable integer column as a number, or null. */
export function toNumberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** A `json` (or JSON text) column, parsed. */
export function parseJson(value: unknown): unknown {
  if (typeof value !== "string") throw new TypeError(`expected JSON text from the store, got ${typeof value}`);
  return JSON.parse(value) as unknown;
}
