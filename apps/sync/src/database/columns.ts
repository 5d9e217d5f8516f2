import { StoreError } from "../common/errors.ts";

/*
 * Column decoders for statements (statement.ts): each reads a value as either driver returns it
 * and refuses anything else with a StoreError, so unknown data in the store is an error, never a
 * default. node:sqlite gives integers and reals as numbers, booleans as 0/1 and times as the ISO
 * 8601 text they were stored as; pg gives bigint and numeric as strings, booleans as booleans,
 * timestamptz as a Date, and `json` as its text (see postgres-driver.ts).
 */

function unexpected(what: string, value: unknown): StoreError {
  const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : String(value);
  return new StoreError(`the store returned ${shown} where ${what} was expected`);
}

const INTEGER_TEXT = /^-?\d+$/;

/** An integer column (bigint arrives as text from PostgreSQL). */
export function integer(value: unknown): number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && INTEGER_TEXT.test(value)) {
    const number = Number(value);
    if (Number.isSafeInteger(number)) return number;
  }
  if (typeof value === "bigint" && value <= Number.MAX_SAFE_INTEGER && value >= Number.MIN_SAFE_INTEGER)
    return Number(value);
  throw unexpected("an integer", value);
}

/** A decimal column (numeric arrives as text from PostgreSQL), finite. */
export function decimal(value: unknown): number {
  const number =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (Number.isFinite(number)) return number;
  throw unexpected("a finite number", value);
}

/** A text column. */
export function text(value: unknown): string {
  if (typeof value === "string") return value;
  throw unexpected("text", value);
}

/** A time column as ISO 8601 text. */
export function isoTime(value: unknown): string {
  if (value instanceof Date && Number.isFinite(value.getTime())) return value.toISOString();
  if (typeof value === "string" && Number.isFinite(Date.parse(value))) return value;
  throw unexpected("a time", value);
}

/** A time column as epoch milliseconds. */
export function epochMillis(value: unknown): number {
  const millis = value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : NaN;
  if (Number.isFinite(millis)) return millis;
  throw unexpected("a time", value);
}

/** A time column as a Date. */
export function date(value: unknown): Date {
  return new Date(Date.parse(isoTime(value)));
}

/** A boolean column (`true`/`false`, or 1/0 on SQLite). */
export function bool(value: unknown): boolean {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  throw unexpected("a boolean", value);
}

/** A `json` (or JSON text) column, parsed: text that is not JSON is a StoreError too (a SyntaxError would pass for a bug). */
export function json(value: unknown): unknown {
  const stored = text(value);
  try {
    return JSON.parse(stored) as unknown;
  } catch {
    throw unexpected("JSON", stored);
  }
}

/** One of a fixed list of texts (an enumeration kept as text). */
export function oneOf<const Value extends string>(values: readonly Value[]): (value: unknown) => Value {
  return (value) => {
    const found = values.find((candidate) => candidate === value);
    if (found === undefined) throw unexpected(`one of ${values.join(", ")}`, value);
    return found;
  };
}

/** The same decoder, letting SQL NULL through as null. */
export function nullable<T>(decode: (value: unknown) => T): (value: unknown) => T | null {
  return (value) => (value === null || value === undefined ? null : decode(value));
}
