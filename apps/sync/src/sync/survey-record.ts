import { hash } from "node:crypto";
import { parseDecimal, type Survey, type SurveyQualification, type SurveyQuota } from "@sds/schemas";
import type { ChildRecordWrite, SurveyColumns } from "../store/store.ts";

/**
 * Hash of a survey record without `Qual_LastUpdatedOnUTC` and `Quota_LastUpdatedOnUTC`: those
 * two markers have their own change types (`qualifications_changed`, `quotas_changed`), so a
 * moved marker alone is not an `updated` survey. Comparing hashes lets a no-change cycle diff
 * 10,000 surveys without reading a single stored record.
 */
export function recordHash(survey: Survey): string {
  const { Qual_LastUpdatedOnUTC: _qualifications, Quota_LastUpdatedOnUTC: _quotas, ...record } = survey;
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
  return { key: qualification.QualificationId, typeId: qualification.QualificationTypeId, raw: JSON.stringify(qualification) };
}

/** A quota as the store keeps it. */
export function quotaRecord(quota: SurveyQuota): ChildRecordWrite {
  return { key: quota.QuotaId, typeId: null, raw: JSON.stringify(quota) };
}
