import type { Survey, SurveyQualification } from "@sds/schemas";
import { createSeededRandom, deriveSeed } from "../random.ts";
import { buildQualifications } from "./qualifications.ts";
import type { SeedOptions } from "./types.ts";

/** One condition of a generated quota: a qualification and the options that count toward it. */
export type GeneratedQuotaCondition = {
  readonly QualificationId: number;
  readonly OptionIds: number[];
  readonly OptionCodes: string[];
};

/**
 * A generated quota. Only `QuotaId` and `Conditions` have been seen in public integrations;
 * the counts are plausible additions (unknown fields are kept by the schemas).
 */
export type GeneratedQuota = {
  readonly QuotaId: number;
  readonly SurveyId: number;
  readonly Name: string;
  readonly TargetCompletes: number;
  readonly Completes: number;
  readonly Remaining: number;
  readonly IsActive: boolean;
  readonly Conditions: GeneratedQuotaCondition[];
};

/** Options of {@link buildQuotas}. */
export interface QuotaOptions extends SeedOptions {
  /** The survey's qualification records, which quota conditions refer to. @default buildQualifications(survey, { seed }) */
  readonly qualifications?: readonly SurveyQualification[];
}

/**
 * Builds the quotas of a survey: an overall quota and, when the survey screens on gender, one
 * quota per gender option, each with targets, completes and remaining counts. Conditions only
 * use the survey's own qualification options. A survey with `Has_Quotas: false` has none.
 *
 * @example
 * ```ts
 * const survey = buildSurvey({ Has_Quotas: true });
 * const quotas = buildQuotas(survey, { seed: 1 });
 * ```
 */
export function buildQuotas(
  survey: Pick<Survey, "SurveyId" | "Has_Quotas" | "Has_Qualifications" | "Qual_LastUpdatedOnUTC" | "Completes">,
  options: QuotaOptions = {},
): GeneratedQuota[] {
  if (!survey.Has_Quotas) return [];
  const seed = options.seed ?? 1;
  const random = createSeededRandom(deriveSeed(seed, survey.SurveyId, 3));
  const qualifications = options.qualifications ?? buildQualifications(survey, { seed });
  // Quota ids are derived from the survey id where that stays a safe integer, so they are unique across surveys.
  const idBase = Number.isSafeInteger(survey.SurveyId * 100 + 99) ? survey.SurveyId * 100 : 0;
  const target = random.int(2, 40) * 50;
  const completes = Math.min(target, Math.max(0, survey.Completes));
  const quotas: GeneratedQuota[] = [
    {
      QuotaId: idBase + 1,
      SurveyId: survey.SurveyId,
      Name: "Total",
      TargetCompletes: target,
      Completes: completes,
      Remaining: target - completes,
      IsActive: true,
      Conditions: [],
    },
  ];
  const gender = qualifications.find((qualification) => qualification.QualificationId === 43);
  if (gender && gender.OptionIds.length > 1) {
    gender.OptionIds.forEach((optionId, index) => {
      const share = Math.ceil(target / gender.OptionIds.length);
      const done = Math.min(share, random.int(0, Math.ceil(completes / gender.OptionIds.length)));
      quotas.push({
        QuotaId: idBase + 2 + index,
        SurveyId: survey.SurveyId,
        Name: `Gender ${gender.OptionCodes[index] ?? optionId}`,
        TargetCompletes: share,
        Completes: done,
        Remaining: share - done,
        IsActive: random.chance(0.9),
        Conditions: [
          { QualificationId: 43, OptionIds: [optionId], OptionCodes: gender.OptionCodes.slice(index, index + 1) },
        ],
      });
    });
  }
  return quotas;
}
