import type { ValidationIssue } from "../errors/validation-errors.ts";

/** Each path parameter must be a non-empty string or a safe integer. */
export function checkPathParams(
  names: readonly string[],
  values: Readonly<Record<string, string | number>>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const name of names) {
    const value = values[name] as unknown;
    const valid =
      (typeof value === "number" && Number.isSafeInteger(value)) || (typeof value === "string" && value.trim() !== "");
    if (!valid)
      issues.push({
        path: [name],
        code: "invalid_type",
        message: `${name} must be an integer or a non-empty string, got ${describeValue(value)}`,
      });
  }
  return issues;
}

function describeValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  return value === null ? "null" : typeof value;
}

/** `fetch failed: connect ECONNREFUSED 127.0.0.1:9` — an error's message and its cause's. */
export function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : "";
  return `${cause.message}${inner}`;
}
