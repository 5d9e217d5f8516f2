import { strict } from "@sds/schemas";
import type { z } from "zod";
import type { ValidationMode } from "../client-options.ts";
import type { ValidationIssue } from "../errors/validation-errors.ts";
import { compiledSchema } from "./compiled-schema.ts";
import { parsesToItsInput } from "./pass-through.ts";

/** The outcome of checking a body. */
export type ParseOutcome<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly issues: readonly ValidationIssue[] };

/** Turns a parsed JSON body into the data a call resolves to, in the given validation mode. */
export type ResponseParser<T> = (body: unknown, mode: ValidationMode) => ParseOutcome<T>;

/** zod's issues reduced to what an error carries: path, message, code. */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map(({ path, message, code }) => ({ path, message, code }));
}

/**
 * A parser that checks a body against `schema`: as it is (`loose`, unknown fields kept), made
 * strict (`strict`, unknown fields reported), or not at all (`off`).
 *
 * When the schema only checks (see {@link parsesToItsInput}), a valid body is returned as
 * parsed from JSON instead of as zod's deep copy of it: the same value, without building a
 * second copy of a 10,000-survey list. Only a body that fails the check is parsed again, for
 * its issues.
 */
export function schemaParser<Schema extends z.ZodType>(schema: Schema): ResponseParser<z.output<Schema>> {
  return (body, mode) => {
    if (mode === "off") return { success: true, data: body as z.output<Schema> };
    const checked = compiledSchema(mode === "strict" ? strict(schema) : schema);
    if (parsesToItsInput(checked) && checked.validate(body)) return { success: true, data: body as z.output<Schema> };
    const result = checked.safeParse(body);
    return result.success
      ? { success: true, data: result.data }
      : { success: false, issues: toValidationIssues(result.error.issues) };
  };
}

/** `Surveys.4.Cpi: expected a decimal number as a string; …` — the first few issues, for a message. */
export function summarizeIssues(issues: readonly ValidationIssue[], shown = 3): string {
  const listed = issues
    .slice(0, shown)
    .map(({ path, message }) => (path.length > 0 ? `${path.map(String).join(".")}: ${message}` : message));
  const more = issues.length > shown ? `; and ${issues.length - shown} more` : "";
  return `${listed.join("; ")}${more}`;
}
