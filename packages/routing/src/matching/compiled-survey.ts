import type { SurveyQuota } from "@sds/schemas";
import { compileAnswerRule, type AnswerRule } from "./answer-rule.ts";
import type { MatchableSurvey, MatchQualification } from "./match-types.ts";

/** A quota compiled for matching. */
export interface CompiledQuota {
  readonly quotaId: number;
  /** `Remaining`, or `undefined` when the quota has none (then it counts as open). */
  readonly remaining: number | undefined;
  /**
   * The conditions; `undefined` when one of them could not be read, in which case a closed
   * quota is taken to hold every respondent (never route blind).
   */
  readonly conditions: readonly AnswerRule[] | undefined;
}

/**
 * What a survey is routed on besides its own fields, compiled: its qualification rules, and the
 * quotas that can exclude anyone (`Remaining <= 0`). `null` where they are not stored.
 */
export interface CompiledTargeting {
  readonly qualifications: readonly AnswerRule[] | null;
  /** The quotas with `Remaining <= 0` (only these can exclude anyone); `null` when the quotas are not stored. */
  readonly closedQuotas: readonly CompiledQuota[] | null;
}

/** The fields of a survey that matching reads besides its id and score. */
export type SurveyFacts = Pick<MatchableSurvey, "LanguageId" | "DesktopAllowed" | "MobileAllowed" | "TabletAllowed">;

function readInteger(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
}

function readCodes(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const codes: string[] = [];
  for (const code of value as unknown[]) {
    if (typeof code === "string") codes.push(code);
    else if (typeof code === "number") codes.push(String(code));
    else return undefined;
  }
  return codes;
}

// Quota conditions have no documented shape. Read the names the factories and public
// integrations use: `QualificationId` (or Lucid's `QuestionID`) and `OptionCodes` (or `PreCodes`).
function compileCondition(condition: Readonly<Record<string, unknown>>): AnswerRule | undefined {
  const qualificationId = readInteger(
    condition["QualificationId"] ?? condition["QuestionId"] ?? condition["QuestionID"],
  );
  const codes = readCodes(condition["OptionCodes"] ?? condition["PreCodes"]);
  return qualificationId === undefined || codes === undefined ? undefined : compileAnswerRule(qualificationId, codes);
}

function compileQuota(quota: SurveyQuota): CompiledQuota {
  const conditions: AnswerRule[] = [];
  let readable = true;
  for (const condition of quota.Conditions ?? []) {
    const rule = compileCondition(condition);
    if (rule === undefined) readable = false;
    else conditions.push(rule);
  }
  return {
    quotaId: quota.QuotaId,
    remaining: readInteger(quota["Remaining"]),
    conditions: readable ? conditions : undefined,
  };
}

/** A decimal survey field (`Cpi`, `Ir`) as a number; a malformed one counts as 0. */
export function decimalField(value: string): number {
  const number = /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? number : 0;
}

/** Expected earnings per entry: `Cpi × Ir / 100` (a malformed number counts as 0). */
export function expectedEarnings(survey: Pick<MatchableSurvey, "Cpi" | "Ir">): number {
  return (decimalField(survey.Cpi) * decimalField(survey.Ir)) / 100;
}

/** Compiles a survey's qualifications and quotas (`null`: not stored). */
export function compileTargeting(
  qualifications: readonly MatchQualification[] | null,
  quotas: readonly SurveyQuota[] | null,
): CompiledTargeting {
  return {
    qualifications:
      qualifications?.map((record) => compileAnswerRule(record.QualificationId, record.OptionCodes)) ?? null,
    closedQuotas:
      quotas?.map(compileQuota).filter((quota) => quota.remaining !== undefined && quota.remaining <= 0) ?? null,
  };
}
