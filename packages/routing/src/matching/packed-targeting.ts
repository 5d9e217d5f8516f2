import { compileAnswerRule, type AnswerRule } from "./answer-rule.ts";
import type { CompiledQuota, CompiledTargeting } from "./compiled-survey.ts";

/*
 * A survey's compiled targeting as one string, which is what the matcher keeps per survey: a few
 * hundred bytes instead of the records and compiled objects (sets, arrays, objects per rule) that
 * cost kilobytes. It is read back only where the indexes do not answer: when the survey is
 * replaced or removed (to take it out of the indexes), for `explain`, and for the few surveys that
 * need a direct check (those are kept compiled).
 *
 * Two forms. The common one (qualifications stored, codes all strings, quotas stored and none
 * closed) is `Q` then the rules separated by U+0002, each its id and its codes separated by
 * U+0001: no quotes or commas, a third shorter than JSON. Within a rule, a run of three or more
 * consecutive whole numbers written plainly (`"18"`, `"19"` … `"65"`: an age question lists every
 * age) is kept as its ends joined by U+0003, so a 48-age rule costs a few bytes, not 150. Anything
 * else (a closed quota, a code holding a separator or not a string) is JSON, which starts with `[`.
 *
 * The string is built by one `join`, so it is flat: `Q` + text would be a cons string, a
 * 32-byte head kept per survey on top of the text.
 */

type PackedRule = readonly [qualificationId: number, optionCodes: readonly string[]];
type PackedQuota = readonly [quotaId: number, remaining: number | null, conditions: readonly PackedRule[] | null];
type Packed = readonly [qualifications: readonly PackedRule[] | null, closedQuotas: readonly PackedQuota[] | null];

const COMPACT = "Q";
const FIELD = "\u0001";
const RULE = "\u0002";
const RUN = "\u0003";
/** A whole number written the way `String(n)` writes it back (no sign, no leading zero), small enough to stay exact. */
const PLAIN_WHOLE = /^(?:0|[1-9]\d{0,14})$/;
/** Shortest run of consecutive numbers worth writing as its ends. */
const MIN_RUN = 3;

/** Surveys that screen on nothing share one string. */
const NOTHING = COMPACT;

const packRule = (rule: AnswerRule): PackedRule => [rule.qualificationId, rule.optionCodes];
const unpackRule = ([qualificationId, optionCodes]: PackedRule): AnswerRule =>
  compileAnswerRule(qualificationId, optionCodes);

/** The targeting as a string that {@link unpackTargeting} turns back into an equal one. */
export function packTargeting(targeting: CompiledTargeting): string {
  const { qualifications } = targeting;
  if (qualifications !== null && targeting.closedQuotas?.length === 0 && qualifications.every(isCompactable)) {
    if (qualifications.length === 0) return NOTHING;
    const rules = qualifications.map((rule) =>
      [String(rule.qualificationId), ...packCodes(rule.optionCodes)].join(FIELD),
    );
    rules[0] = COMPACT + (rules[0] ?? "");
    return rules.join(RULE);
  }
  const packed: Packed = [
    targeting.qualifications?.map(packRule) ?? null,
    targeting.closedQuotas?.map((quota) => [
      quota.quotaId,
      quota.remaining ?? null,
      quota.conditions?.map(packRule) ?? null,
    ]) ?? null,
  ];
  return JSON.stringify(packed);
}

function isCompactable(rule: AnswerRule): boolean {
  // The id must read back as the same number, and every code must be a string without a separator.
  const id = String(rule.qualificationId);
  return (
    String(Number(id)) === id &&
    rule.optionCodes.every(
      (code) => typeof code === "string" && !code.includes(FIELD) && !code.includes(RULE) && !code.includes(RUN),
    )
  );
}

/** The codes with each run of {@link MIN_RUN} or more consecutive plain whole numbers written as `first` U+0003 `last`. */
function packCodes(codes: readonly string[]): string[] {
  const packed: string[] = [];
  let index = 0;
  while (index < codes.length) {
    const code = codes[index] ?? "";
    let end = index + 1;
    if (PLAIN_WHOLE.test(code)) {
      const first = Number(code);
      while (end < codes.length && codes[end] === String(first + (end - index))) end += 1;
    }
    if (end - index >= MIN_RUN) packed.push(`${code}${RUN}${codes[end - 1] ?? ""}`);
    else for (let taken = index; taken < end; taken += 1) packed.push(codes[taken] ?? "");
    index = end;
  }
  return packed;
}

/** The codes that {@link packCodes} packed. */
function unpackCodes(fields: readonly string[]): string[] {
  const codes: string[] = [];
  for (const field of fields) {
    const run = field.indexOf(RUN);
    if (run === -1) {
      codes.push(field);
      continue;
    }
    const last = Number(field.slice(run + 1));
    for (let value = Number(field.slice(0, run)); value <= last; value += 1) codes.push(String(value));
  }
  return codes;
}

/** The targeting that {@link packTargeting} packed, compiled again. */
export function unpackTargeting(text: string): CompiledTargeting {
  if (text.startsWith(COMPACT)) {
    const rules = text.length === COMPACT.length ? [] : text.slice(COMPACT.length).split(RULE);
    return {
      qualifications: rules.map((rule) => {
        const [id = "", ...fields] = rule.split(FIELD);
        return compileAnswerRule(Number(id), unpackCodes(fields));
      }),
      closedQuotas: [],
    };
  }
  const [qualifications, closedQuotas] = JSON.parse(text) as Packed;
  return {
    qualifications: qualifications?.map(unpackRule) ?? null,
    closedQuotas:
      closedQuotas?.map(([quotaId, remaining, conditions]): CompiledQuota => ({
        quotaId,
        remaining: remaining ?? undefined,
        conditions: conditions?.map(unpackRule),
      })) ?? null,
  };
}
