import { compileAnswerRule, type AnswerRule } from "./answer-rule.ts";
import type { CompiledQuota, CompiledTargeting } from "./compiled-survey.ts";

/*
 * A survey's compiled targeting as one string, which is what the matcher keeps per survey: a few
 * hundred bytes instead of the records and compiled objects (sets, arrays, objects per rule) that
 * cost kilobytes. It is read back only where the indexes do not answer: when the survey is
 * replaced or removed (to take it out of the indexes), for `explain`, and for the few surveys that
 * need a direct check (those are kept compiled).
 */

type PackedRule = readonly [qualificationId: number, optionCodes: readonly string[]];
type PackedQuota = readonly [quotaId: number, remaining: number | null, conditions: readonly PackedRule[] | null];
type Packed = readonly [qualifications: readonly PackedRule[] | null, closedQuotas: readonly PackedQuota[] | null];

/** Most surveys screen on something; those that do not share one string. */
const NOTHING = JSON.stringify([[], []] satisfies Packed);

const packRule = (rule: AnswerRule): PackedRule => [rule.qualificationId, rule.optionCodes];
const unpackRule = ([qualificationId, optionCodes]: PackedRule): AnswerRule => compileAnswerRule(qualificationId, optionCodes);

/** The targeting as a string that {@link unpackTargeting} turns back into an equal one. */
export function packTargeting(targeting: CompiledTargeting): string {
  const packed: Packed = [
    targeting.qualifications?.map(packRule) ?? null,
    targeting.closedQuotas?.map((quota) => [quota.quotaId, quota.remaining ?? null, quota.conditions?.map(packRule) ?? null]) ?? null,
  ];
  const text = JSON.stringify(packed);
  return text === NOTHING ? NOTHING : text;
}

/** The targeting that {@link packTargeting} packed, compiled again. */
export function unpackTargeting(text: string): CompiledTargeting {
  const [qualifications, closedQuotas] = JSON.parse(text) as Packed;
  return {
    qualifications: qualifications?.map(unpackRule) ?? null,
    closedQuotas:
      closedQuotas?.map(([quotaId, remaining, conditions]): CompiledQuota => ({ quotaId, remaining: remaining ?? undefined, conditions: conditions?.map(unpackRule) })) ?? null,
  };
}
