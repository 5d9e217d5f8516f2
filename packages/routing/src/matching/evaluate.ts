import { allowedDevices } from "@sds/schemas";
import { answersMeet } from "./answer-rule.ts";
import type { CompiledQuota, CompiledTargeting, SurveyFacts } from "./compiled-survey.ts";
import type { ExclusionReason } from "./match-types.ts";

/** The answers of a request, read through a `Map` (user-controlled keys never index an object). */
export type AnswerLookup = Pick<ReadonlyMap<string, readonly string[]>, "get">;

/** Whether the respondent falls into the quota: meets every condition (one without conditions holds everyone). */
export function fallsInto(quota: CompiledQuota, answers: AnswerLookup): boolean {
  if (quota.conditions === undefined) return true;
  for (const condition of quota.conditions) if (!answersMeet(condition, answers.get(condition.key))) return false;
  return true;
}

/** The closed quota that keeps the respondent out, if any. */
export function closedQuotaFor(targeting: CompiledTargeting, answers: AnswerLookup): CompiledQuota | undefined {
  for (const quota of targeting.closedQuotas ?? []) if (fallsInto(quota, answers)) return quota;
  return undefined;
}

/** Whether the answers meet every qualification of the survey (`false` when they are not stored). */
export function qualificationsMet(targeting: CompiledTargeting, answers: AnswerLookup): boolean {
  if (targeting.qualifications === null) return false;
  for (const rule of targeting.qualifications) if (!answersMeet(rule, answers.get(rule.key))) return false;
  return true;
}

/** Every reason one survey is out for one respondent, checked rule by rule without indexes. */
export function exclusionReasons(
  survey: SurveyFacts,
  compiled: CompiledTargeting,
  answers: AnswerLookup,
  request: { readonly languageId?: number; readonly device?: "desktop" | "mobile" | "tablet" },
): ExclusionReason[] {
  const reasons: ExclusionReason[] = [];
  const missing = [
    ...(compiled.qualifications === null ? (["qualifications"] as const) : []),
    ...(compiled.closedQuotas === null ? (["quotas"] as const) : []),
  ];
  if (missing.length > 0) {
    reasons.push({
      kind: "not-stored",
      missing,
      message: `its ${missing.join(" and ")} are not stored yet (awaiting a refetch); never routed blind`,
    });
  }
  if (request.languageId !== undefined && survey.LanguageId !== request.languageId) {
    reasons.push({
      kind: "language",
      languageId: survey.LanguageId,
      requested: request.languageId,
      message: `its language is ${survey.LanguageId}, not ${request.languageId}`,
    });
  }
  if (request.device !== undefined) {
    const allowed = allowedDevices(survey);
    if (!allowed.has(request.device)) {
      reasons.push({
        kind: "device",
        device: request.device,
        allowed: [...allowed],
        message: `it does not allow ${request.device}`,
      });
    }
  }
  for (const rule of compiled.qualifications ?? []) {
    const given = answers.get(rule.key) ?? [];
    if (!answersMeet(rule, given)) {
      reasons.push({
        kind: "qualification",
        qualificationId: rule.qualificationId,
        optionCodes: rule.optionCodes,
        answers: given,
        message:
          given.length === 0
            ? `qualification ${rule.qualificationId} is not answered`
            : `qualification ${rule.qualificationId} accepts ${rule.optionCodes.join(", ")}; the answers were ${given.join(", ")}`,
      });
    }
  }
  for (const quota of compiled.closedQuotas ?? []) {
    if (fallsInto(quota, answers)) {
      const remaining = quota.remaining ?? 0;
      reasons.push({
        kind: "quota",
        quotaId: quota.quotaId,
        remaining,
        message: `quota ${quota.quotaId} holds the respondent and is closed (Remaining ${remaining})`,
      });
    }
  }
  return reasons;
}
