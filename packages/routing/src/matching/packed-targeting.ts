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
 * U+0001: no quotes or commas, a third shorter than JSON. Anything else (a closed quota, a code
 * holding a separator or not a string) is JSON, which starts with `[`.
 */

type PackedRule = readonly [qualificationId: number, optionCodes: readonly string[]];
type PackedQuota = readonly [quotaId: number, remaining: number | null, conditions: readonly PackedRule[] | null];
type Packed = readonly [qualifications: readonly PackedRule[] | null, closedQuotas: readonly PackedQuota[] | null];

const COMPACT = "Q";
const FIELD = "\u0001";
const RULE = "\u0002";

/** Surveys that screen on nothing share one string. */
const NOTHING = COMPACT;

const packRule = (rule: AnswerRule): PackedRule => [rule.qualificationId, rule.optionCodes];
const unpackRule = ([qualificationId, optionCodes]: PackedRule): AnswerRule => compileAnswerRule(qualificationId, optionCodes);

/** The targeting as a string that {@link unpackTargeting} turns back into an equal one. */
export function packTargeting(targeting: CompiledTargeting): string {
  const { qualifications } = targeting;
  if (qualifications !== null && targeting.closedQuotas?.length === 0 && qualifications.every(isCompactable)) {
    if (qualifications.length === 0) return NOTHING;
    return COMPACT + qualifications.map((rule) => [String(rule.qualificationId), ...rule.optionCodes].join(FIELD)).join(RULE);
  }
  const packed: Packed = [
    targeting.qualifications?.map(packRule) ?? null,
    targeting.closedQuotas?.map((quota) => [quota.quotaId, quota.remaining ?? null, quota.conditions?.map(packRule) ?? null]) ?? null,
  ];
  return JSON.stringify(packed);
}

function isCompactable(rule: AnswerRule): boolean {
  // The id must read back as the same number, and every code must be a string without a separator.
  const id = String(rule.qualificationId);
  return String(Number(id)) === id && rule.optionCodes.every((code) => typeof code === "string" && !code.includes(FIELD) && !code.includes(RULE));
}

/** The targeting that {@link packTargeting} packed, compiled again. */
export function unpackTargeting(text: string): CompiledTargeting {
  if (text.startsWith(COMPACT)) {
    const rules = text.length === COMPACT.length ? [] : text.slice(COMPACT.length).split(RULE);
    return {
      qualifications: rules.map((rule) => {
        const [id = "", ...codes] = rule.split(FIELD);
        return compileAnswerRule(Number(id), codes);
      }),
      closedQuotas: [],
    };
  }
  const [qualifications, closedQuotas] = JSON.parse(text) as Packed;
  return {
    qualifications: qualifications?.map(unpackRule) ?? null,
    closedQuotas:
      closedQuotas?.map(([quotaId, remaining, conditions]): CompiledQuota => ({ quotaId, remaining: remaining ?? undefined, conditions: conditions?.map(unpackRule) })) ?? null,
  };
}
