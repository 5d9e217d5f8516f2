import { hash } from "node:crypto";
import { isResponseValidationError } from "@sds/client";
import type { InvalidItem } from "@sds/schemas";
import type { QuarantineInput } from "../store/store.ts";

/** The `SurveyId` of a malformed item when it still has a usable one, else null. */
export function surveyIdOf(item: unknown): number | null {
  if (typeof item !== "object" || item === null) return null;
  const id = (item as { SurveyId?: unknown }).SurveyId;
  return typeof id === "number" && Number.isSafeInteger(id) ? id : null;
}

/**
 * The quarantine entry of a malformed survey of the live list. Keyed by survey when the id is
 * readable, so a survey that stays malformed for many cycles is one entry seen many times.
 */
export function quarantineOfItem(invalid: InvalidItem): QuarantineInput {
  const surveyId = surveyIdOf(invalid.item);
  const item = toJson(invalid.item);
  return {
    key: surveyId === null ? `surveys:item:${hash("sha1", item, "hex")}` : `surveys:${surveyId}`,
    surveyId,
    source: "surveys",
    item,
    issues: JSON.stringify(invalid.issues.map(({ path, message, code }) => ({ path: path.map(String), message, code }))),
  };
}

/**
 * The quarantine entry of a per-survey response that arrived but did not match its schema;
 * undefined for any other failure (those are retried, not quarantined).
 */
export function quarantineOfResponse(error: unknown, kind: "qualifications" | "quotas", surveyId: number): QuarantineInput | undefined {
  if (!isResponseValidationError(error)) return undefined;
  return {
    key: `${kind}:${surveyId}`,
    surveyId,
    source: kind,
    item: toJson(error.body),
    issues: JSON.stringify(error.issues.map(({ path, message, code }) => ({ path: path.map(String), message, code }))),
  };
}

/** JSON of a value that came from JSON; `undefined` (absent) is stored as `null`. */
function toJson(value: unknown): string {
  return value === undefined ? "null" : JSON.stringify(value);
}
