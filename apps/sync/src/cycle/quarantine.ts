import { entryLinkProblem } from "@sds/routing";
import { hash } from "node:crypto";
import { isResponseValidationError } from "@sds/client";
import type { InvalidItem } from "@sds/schemas";
import type { QuarantineInput } from "../inventory-store/store.ts";
import { cpiProblem } from "../loop/money.ts";
import { isSurveyId } from "../survey-index/survey-id.ts";

/** The `SurveyId` of a malformed item when it still has a valid one ({@link isSurveyId}), else null. */
export function surveyIdOf(item: unknown): number | null {
  if (typeof item !== "object" || item === null) return null;
  const id = (item as { SurveyId?: unknown }).SurveyId;
  return isSurveyId(id) ? id : null;
}

/**
 * The quarantine entry of a malformed survey of the live list. Keyed by survey when the id is
 * readable, so a survey that stays malformed for many cycles is one entry seen many times.
 */
export function quarantineOfItem(invalid: InvalidItem): QuarantineInput {
  const issues = JSON.stringify(
    invalid.issues.map(({ path, message, code }) => ({ path: path.map(String), message, code })),
  );
  return quarantineOfListItem(invalid.item, toJson(invalid.item), issues);
}

/**
 * The quarantine entry of an item of the live list, given as JSON: keyed by its survey when it
 * names a valid one ({@link isSurveyId}), else by a hash of the item. An item too long to keep is
 * stored as its size and head.
 */
export function quarantineOfListItem(item: unknown, json: string, issues: string): QuarantineInput {
  const surveyId = surveyIdOf(item);
  return {
    key: surveyId === null ? `surveys:item:${hash("sha1", json, "hex")}` : `surveys:${surveyId}`,
    surveyId,
    source: "surveys",
    item: quarantineItemText(json),
    issues,
  };
}

/** The issues of a survey whose id breaks the rule of {@link isSurveyId}. */
export function invalidIdIssues(id: unknown): string {
  return JSON.stringify([
    { path: ["SurveyId"], code: "invalid_id", message: `SurveyId must be a positive safe integer, got ${String(id)}` },
  ]);
}

/**
 * The issues of a `Cpi` that is not a price (negative, more than 6 decimals, too large for a
 * number, above `SYNC_MAX_CPI`), or undefined: such a survey is never stored, so never routed and
 * never summed (loop/money.ts owns the rule).
 */
export function priceIssues(cpi: string, maxCpi: number): string | undefined {
  const problem = cpiProblem(cpi, maxCpi);
  return problem === undefined ? undefined : JSON.stringify([{ path: ["Cpi"], code: "not_a_price", message: problem }]);
}

/**
 * The issues of a `SurveyUrl` that must never become an entry link (a `javascript:` or `data:`
 * URL, credentials before the host, not a URL at all), or undefined. A placeholder the supplier
 * cannot fill is not one of these: such a survey is stored and kept out of matching instead. The
 * common case (an http(s) URL with no `@` in its authority) is decided without parsing: this
 * runs for every listed survey of every cycle.
 */
export function unsafeSurveyUrlIssues(surveyUrl: string): string | undefined {
  const start = surveyUrl.startsWith("https://") ? 8 : surveyUrl.startsWith("http://") ? 7 : -1;
  if (start !== -1) {
    const end = surveyUrl.slice(start).search(/[/?#]/);
    const authority = end === -1 ? surveyUrl.slice(start) : surveyUrl.slice(start, start + end);
    if (!authority.includes("@") && !authority.includes("\\") && authority.length > 0) return undefined;
  }
  const problem = entryLinkProblem(surveyUrl);
  if (problem === undefined || problem.code === "unfilled-placeholder") return undefined;
  return JSON.stringify([
    { path: ["SurveyUrl"], code: problem.code, message: `SurveyUrl cannot become an entry link: ${problem.message}` },
  ]);
}

/**
 * The quarantine entry of a per-survey response that arrived but did not match its schema;
 * undefined for any other failure (those are retried, not quarantined).
 */
export function quarantineOfResponse(
  error: unknown,
  kind: "qualifications" | "quotas",
  surveyId: number,
): QuarantineInput | undefined {
  if (!isResponseValidationError(error)) return undefined;
  return {
    key: `${kind}:${surveyId}`,
    surveyId,
    source: kind,
    item: quarantineItemText(toJson(error.body)),
    issues: JSON.stringify(error.issues.map(({ path, message, code }) => ({ path: path.map(String), message, code }))),
  };
}

/** Longest item text kept in quarantine: an oversize record is stored as its size and its head, never whole. */
export const QUARANTINE_ITEM_MAX_CHARS = 16_384;

/** The item text kept in quarantine: the JSON itself, or its size and head when it is too long to keep. */
export function quarantineItemText(json: string): string {
  if (json.length <= QUARANTINE_ITEM_MAX_CHARS) return json;
  return JSON.stringify({ truncated: true, bytes: Buffer.byteLength(json, "utf8"), head: json.slice(0, 1024) });
}

/** JSON of a value that came from JSON; `undefined` (absent) is stored as `null`. */
function toJson(value: unknown): string {
  return value === undefined ? "null" : JSON.stringify(value);
}
