import { describeValue, envelopeProblem, firstField, isRecord } from "./internal/body-reading.ts";

/** One respondent of a re-contact survey as the parser reads it. */
export interface ParsedRecontactRespondent {
  /** The supplier's respondent id (Lucid's `PID`). */
  readonly uid: string;
  /** Whether the respondent may enter now; an inactive one is listed but must be turned away. */
  readonly active: boolean;
}

/** What {@link parseRecontactRespondents} returns: the respondents, or why the body cannot be read. */
export type ParseRecontactRespondentsResult =
  | { readonly ok: true; readonly respondents: readonly ParsedRecontactRespondent[] }
  | { readonly ok: false; readonly problem: string };

/** The names the list goes by: the guessed one, Lucid's. */
const listKeys = ["Respondents", "SurveyQualifiedRespondents"] as const;
/** The names a respondent's id goes by: Lucid's `PID`, the guessed one, a generic one. */
const uidKeys = ["PID", "RespondentId", "Uid"] as const;

/**
 * Reads the body of Get ReContact Respondents (undocumented, so read leniently) into respondent
 * ids and whether each is active. Accepts `{ "Respondents": [...] }` and Lucid's
 * `{ "SurveyQualifiedRespondents": [...] }`, whose items are a respondent id (string) or an
 * object naming it `PID`, `RespondentId` or `Uid` (a non-empty string) with an optional
 * `IsActive` boolean: missing means active. A respondent listed twice is read once, in its
 * first place, and is active only if every listing says so (the list admits respondents, so
 * doubt turns one away). Anything else (a number for an id, `IsActive: null`, both lists in one
 * body) is a problem, never guessed at.
 *
 * Pure: never throws, whatever `body` is.
 *
 * @example
 * ```ts
 * parseRecontactRespondents({ SurveyQualifiedRespondents: [{ PID: "p-1", IsActive: false }, { PID: "p-2" }] });
 * // { ok: true, respondents: [{ uid: "p-1", active: false }, { uid: "p-2", active: true }] }
 * ```
 */
export function parseRecontactRespondents(body: unknown): ParseRecontactRespondentsResult {
  if (!isRecord(body)) return problem(`the body is not a JSON object but ${describeValue(body)}`);
  const failed = envelopeProblem(body);
  if (failed) return problem(failed);
  const present = listKeys.filter((key) => Object.hasOwn(body, key) && body[key] !== undefined);
  if (present.length > 1)
    return problem(`the body carries both ${present.join(" and ")}; which one is the list is unclear`);
  const key = present[0] ?? listKeys[0];
  const list = body[key];
  if (!Array.isArray(list)) return problem(`${key}: expected a list of respondents, got ${describeValue(list)}`);

  const active = new Map<string, boolean>();
  for (const [index, item] of (list as unknown[]).entries()) {
    const where = `${key}[${index}]`;
    const read = readRespondent(item, where);
    if (typeof read === "string") return problem(read);
    active.set(read.uid, (active.get(read.uid) ?? true) && read.active);
  }
  return { ok: true, respondents: [...active].map(([uid, isActive]) => ({ uid, active: isActive })) };
}

/** One item of the list, or the problem with it. */
function readRespondent(item: unknown, where: string): ParsedRecontactRespondent | string {
  if (typeof item === "string")
    return item.trim() === "" ? `${where}: expected a respondent id, got an empty string` : { uid: item, active: true };
  if (!isRecord(item)) return `${where}: expected a respondent id or object, got ${describeValue(item)}`;
  const uid = firstField(item, uidKeys);
  if (!uid) return `${where}: no respondent id (${uidKeys.join(", ")})`;
  if (typeof uid.value !== "string" || uid.value.trim() === "")
    return `${where}.${uid.key}: expected a non-empty string, got ${describeValue(uid.value)}`;
  const isActive = item["IsActive"];
  if (isActive !== undefined && typeof isActive !== "boolean")
    return `${where}.IsActive: expected true or false, got ${describeValue(isActive)}`;
  return { uid: uid.value, active: isActive ?? true };
}

function problem(text: string): { readonly ok: false; readonly problem: string } {
  return { ok: false, problem: text };
}
