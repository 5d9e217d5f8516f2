import type { Survey } from "@sds/schemas";
import { createSeededRandom, deriveSeed } from "../random.ts";
import type { SeedOptions } from "./types.ts";

/*
 * Stats, groups and re-contact respondents: the spec names these operations but shows no
 * bodies. The records here are plausible guesses, typed so tests can rely on them.
 */

/** Generated delivery statistics of a survey. */
export type GeneratedSurveyStats = {
  readonly Starts: number;
  readonly Completes: number;
  readonly Terminates: number;
  readonly OverQuotas: number;
  readonly SecurityTerminates: number;
  /** Completes divided by starts, 0..1, four decimals. */
  readonly ConversionRate: number;
  /** Median interview length of completes, in minutes. */
  readonly MedianLoi: number;
  /** Earnings per click in the survey's currency: CPI times conversion rate. */
  readonly EarningsPerClick: number;
};

/** A generated survey group: surveys a respondent may take only one of. */
export type GeneratedSurveyGroup = {
  readonly SurveyGroupId: number;
  readonly Name: string;
  readonly SurveyIds: number[];
};

/** A generated respondent eligible for a re-contact survey. */
export type GeneratedRecontactRespondent = {
  readonly RespondentId: string;
  readonly AddedOnUTC: string;
};

/**
 * Builds delivery statistics consistent with the survey: `Completes` is the survey's, starts
 * follow from its incidence rate.
 *
 * @example
 * ```ts
 * buildSurveyStats(buildSurvey()).ConversionRate; // such as 0.3125
 * ```
 */
export function buildSurveyStats(
  survey: Pick<Survey, "SurveyId" | "Completes" | "IncidentRate" | "LengthOfInterview" | "Revenue">,
  options: SeedOptions = {},
): GeneratedSurveyStats {
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, survey.SurveyId, 4));
  const completes = Math.max(0, Math.trunc(survey.Completes));
  const incidence = Math.min(1, Math.max(0.01, survey.IncidentRate / 100));
  const starts = completes === 0 ? random.int(0, 20) : Math.round(completes / incidence) + random.int(0, 10);
  const leftover = Math.max(0, starts - completes);
  const overQuotas = Math.floor(leftover * random.next() * 0.2);
  const securityTerminates = Math.floor(leftover * random.next() * 0.05);
  const conversionRate = starts === 0 ? 0 : Math.round((completes / starts) * 10_000) / 10_000;
  return {
    Starts: starts,
    Completes: completes,
    Terminates: leftover - overQuotas - securityTerminates,
    OverQuotas: overQuotas,
    SecurityTerminates: securityTerminates,
    ConversionRate: conversionRate,
    MedianLoi: Math.max(1, Math.round(survey.LengthOfInterview * (0.8 + random.next() * 0.4))),
    EarningsPerClick: Math.round(survey.Revenue * conversionRate * 100) / 100,
  };
}

/** Options of {@link buildSurveyGroups}. */
export interface SurveyGroupOptions extends SeedOptions {
  /** Other surveys of the same supplier the groups may include. @default [] */
  readonly relatedSurveyIds?: readonly number[];
}

/**
 * Builds the groups of a survey: none unless `Has_Survey_Groups`, then one or two groups that
 * contain the survey and some of `relatedSurveyIds`.
 *
 * @example
 * ```ts
 * buildSurveyGroups(survey, { relatedSurveyIds: [100002, 100003] });
 * ```
 */
export function buildSurveyGroups(
  survey: Pick<Survey, "SurveyId" | "Has_Survey_Groups">,
  options: SurveyGroupOptions = {},
): GeneratedSurveyGroup[] {
  if (!survey.Has_Survey_Groups) return [];
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, survey.SurveyId, 5));
  const related = (options.relatedSurveyIds ?? []).filter((id) => id !== survey.SurveyId);
  return Array.from({ length: random.int(1, 2) }, (_, index) => ({
    SurveyGroupId: 50_000 + random.int(1, 9_999) * 10 + index,
    Name: `Exclusion group ${index + 1} of survey ${survey.SurveyId}`,
    SurveyIds: [survey.SurveyId, ...random.sample(related, random.int(0, 4))].sort((left, right) => left - right),
  }));
}

/**
 * Builds the respondents a re-contact survey may invite: none unless the survey's study type is
 * Recontact (id 2), then 1 to 20 with ids and dates before its `LastUpdatedOnUTC`.
 *
 * @example
 * ```ts
 * buildRecontactRespondents(buildSurvey({ StudyTypeId: 2 })).length; // 1..20
 * ```
 */
export function buildRecontactRespondents(
  survey: Pick<Survey, "SurveyId" | "StudyTypeId" | "LastUpdatedOnUTC">,
  options: SeedOptions = {},
): GeneratedRecontactRespondent[] {
  if (survey.StudyTypeId !== 2) return [];
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, survey.SurveyId, 6));
  const latest = Date.parse(survey.LastUpdatedOnUTC);
  const base = Number.isNaN(latest) ? 0 : latest;
  return Array.from({ length: random.int(1, 20) }, () => ({
    RespondentId: `R${String(random.int(0, 0xffffff)).padStart(8, "0")}`,
    AddedOnUTC: new Date(base - random.int(0, 90 * 86_400_000)).toISOString(),
  }));
}
