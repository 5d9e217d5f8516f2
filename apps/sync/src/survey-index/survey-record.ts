import { hash } from "node:crypto";
import { parseDecimal, type Survey, type SurveyQualification, type SurveyQuota } from "@sds/schemas";
import type { ChildRecordWrite, SurveyColumns } from "../inventory-store/store.ts";

/**
 * Hash of a record as received (its JSON). Comparing it with the stored one lets a no-change
 * cycle diff 10,000 surveys without reading a single stored record.
 */
export function rawHash(raw: string): string {
  return hash("sha1", raw, "base64");
}

/**
 * Hash of what a survey says, without its three timestamps: `LastUpdatedOnUTC` moves whenever
 * anything about the survey moves (its qualifications, quotas, status), and the two child
 * markers have change types of their own. So a survey is `updated` only when a field a
 * consumer acts on changed.
 */
export function recordHash(survey: Survey): string {
  const {
    LastUpdatedOnUTC: _updated,
    Qual_LastUpdatedOnUTC: _qualifications,
    Quota_LastUpdatedOnUTC: _quotas,
    ...record
  } = survey;
  return hash("sha1", JSON.stringify(record), "base64");
}

/** The indexed columns of a survey: numbers for `Cpi`, `Loi` and `Ir`, the device flags, the markers. */
export function surveyColumns(survey: Survey): SurveyColumns {
  return {
    languageId: survey.LanguageId,
    cpi: parseDecimal(survey.Cpi),
    loi: parseDecimal(survey.Loi),
    ir: parseDecimal(survey.Ir),
    desktopAllowed: survey.DesktopAllowed,
    mobileAllowed: survey.MobileAllowed,
    tabletAllowed: survey.TabletAllowed,
    lastUpdated: survey.LastUpdatedOnUTC,
    qualUpdated: survey.Qual_LastUpdatedOnUTC,
    quotaUpdated: survey.Quota_LastUpdatedOnUTC,
  };
}

/** A qualification as the store keeps it. */
export function qualificationRecord(qualification: SurveyQualification): ChildRecordWrite {
  return {
    key: qualification.QualificationId,
    typeId: qualification.QualificationTypeId,
    raw: JSON.stringify(qualification),
  };
}

/** A quota as the store keeps it. */
export function quotaRecord(quota: SurveyQuota): ChildRecordWrite {
  return { key: quota.QuotaId, typeId: null, raw: JSON.stringify(quota) };
}
