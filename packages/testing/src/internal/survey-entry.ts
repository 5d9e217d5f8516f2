import type { Survey, SurveyQualification, SurveyQuota } from "@sds/schemas";
import type { GeneratedRecontactRespondent } from "../factories/recontact-respondents.ts";
import { buildQualifications } from "../factories/qualifications.ts";
import { buildQuotas } from "../factories/quotas.ts";
import type { SurveyStatsInit } from "../fake/types.ts";

/**
 * A survey as the store keeps it. Qualifications and quotas of generated surveys are built on
 * first use (a 10,000-survey sandbox starts fast); `json` caches the survey's serialization.
 */
export interface SurveyEntry {
  readonly supplierId: number;
  live: boolean;
  survey: Survey;
  qualifications: SurveyQualification[] | undefined;
  quotas: SurveyQuota[] | undefined;
  /** The re-contact list once generated or replaced; served only while the study type is Recontact. */
  recontacts: GeneratedRecontactRespondent[] | undefined;
  /** Statistics set by a test; `undefined` serves generated ones. */
  stats: SurveyStatsInit | undefined;
  json: string | undefined;
}

/** Builds the lazily generated parts of an entry, so later changes to the survey do not alter them. */
export function materialize(
  entry: SurveyEntry,
  seed: number,
): { qualifications: SurveyQualification[]; quotas: SurveyQuota[] } {
  entry.qualifications ??= buildQualifications(entry.survey, { seed });
  entry.quotas ??= buildQuotas(entry.survey, { seed, qualifications: entry.qualifications });
  return { qualifications: entry.qualifications, quotas: entry.quotas };
}

/** The survey's JSON, serialized once until it changes. */
export function surveyJson(entry: SurveyEntry): string {
  entry.json ??= JSON.stringify(entry.survey);
  return entry.json;
}
