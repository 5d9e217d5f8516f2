import type { SurveyQualification, SurveyQuota } from "@sds/schemas";
import { tableCell } from "../../framework/cell.ts";
import { resolveOptions, summarizeOptions } from "../surveys/qualification-text.ts";

/*
 * A survey's qualifications and quotas as text a spreadsheet user reads, one cell each, for the
 * CSV export (JSON and NDJSON keep the records whole). Options show as the service names them
 * (codes, else ids), consecutive numbers as a range: `42=18–64; 43=1, 2`.
 */

/** The qualifications: `QualificationId=options`, `; ` between them; empty when there are none. */
export function qualificationsCell(qualifications: readonly SurveyQualification[]): string {
  return qualifications
    .map(
      (qualification) =>
        `${qualification.QualificationId}=${summarizeOptions(resolveOptions(qualification, undefined))}`,
    )
    .join("; ");
}

/**
 * The quotas, ` | ` between them, each `QuotaId Name completes/target: conditions` (the name and
 * the counts where the service sends them; `all respondents` for a quota without conditions);
 * empty when the quotas were not fetched or there are none.
 */
export function quotasCell(quotas: readonly SurveyQuota[] | null): string {
  if (quotas === null) return "";
  return quotas
    .map((quota) => {
      const fields = quota as Record<string, unknown>;
      const name = tableCell(fields.Name);
      const counts =
        fields.Completes === undefined && fields.TargetCompletes === undefined
          ? ""
          : `${tableCell(fields.Completes)}/${tableCell(fields.TargetCompletes)}`;
      const conditions = (quota.Conditions ?? [])
        .map(
          (condition) =>
            `${tableCell(condition.QualificationId)}=${summarizeOptions(resolveOptions(condition, undefined))}`,
        )
        .join("; ");
      const head = [String(quota.QuotaId), name, counts].filter((part) => part !== "").join(" ");
      return `${head}: ${conditions === "" ? "all respondents" : conditions}`;
    })
    .join(" | ");
}
