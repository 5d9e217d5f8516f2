/*
 * Small readers shared by the parsers of the undocumented bodies (groups, re-contacts, stats):
 * they say what a value is in a problem message, and pick the first of several field names.
 */

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a value is, for a problem message: `a string ("7")`, `null`, `an array`, … (long text cut short). */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (typeof value === "number") return `the number ${String(value)}`;
  if (typeof value === "boolean") return `the boolean ${String(value)}`;
  return `an ${typeof value}`;
}

/** The first of `keys` that `record` has (own property, not `undefined`), with its value. */
export function firstField(
  record: Record<string, unknown>,
  keys: readonly string[],
): { readonly key: string; readonly value: unknown } | undefined {
  for (const key of keys) {
    if (Object.hasOwn(record, key) && record[key] !== undefined) return { key, value: record[key] };
  }
  return undefined;
}

/** Whether `value` is an id: a positive safe integer (ids are never 0, negative or fractional). */
export function isPositiveId(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

/** The problem of a body that says it failed, or `undefined`. */
export function envelopeProblem(body: Record<string, unknown>): string | undefined {
  return body["hasError"] === true ? "the body reports an error (hasError: true)" : undefined;
}
