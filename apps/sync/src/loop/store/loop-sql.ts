import { outcomeKinds, type OutcomeKind, type SurveyConversionCounts } from "./loop-store.ts";

/*
 * The outcome store's reads that both dialects answer with the same SQL, and the one mapping of
 * their rows (PostgreSQL returns counts as strings, SQLite as numbers: `Number` takes both).
 */

/** Entries per survey by their latest outcome; the earnings sum the `Cpi` of completed entries. Shared by both dialects. */
export const conversionSql = `
SELECT survey_id, COUNT(*) AS entries,
  SUM(CASE WHEN outcome = 'complete' THEN 1 ELSE 0 END) AS completes,
  SUM(CASE WHEN outcome = 'terminate' THEN 1 ELSE 0 END) AS terminates,
  SUM(CASE WHEN outcome = 'overquota' THEN 1 ELSE 0 END) AS overquotas,
  SUM(CASE WHEN outcome = 'security' THEN 1 ELSE 0 END) AS security_terminates,
  COALESCE(SUM(CASE WHEN outcome = 'complete' THEN cpi ELSE 0 END), 0) AS earnings
FROM loop_entries GROUP BY survey_id ORDER BY survey_id`;

/** One row of {@link conversionSql} as the store returns it. */
export function toConversionCounts(row: Readonly<Record<string, unknown>>): SurveyConversionCounts {
  return {
    surveyId: Number(row.survey_id),
    entries: Number(row.entries),
    completes: Number(row.completes),
    terminates: Number(row.terminates),
    overquotas: Number(row.overquotas),
    securityTerminates: Number(row.security_terminates),
    earnings: Number(row.earnings),
  };
}

/** Recorded outcomes per kind. Shared by both dialects. */
export const outcomeCountsSql = "SELECT outcome, COUNT(*) AS count FROM loop_outcomes GROUP BY outcome";

/** The rows of {@link outcomeCountsSql} as a count for every kind, 0 for a kind with no row. */
export function toOutcomeCounts(rows: readonly Readonly<Record<string, unknown>>[]): Record<OutcomeKind, number> {
  const counts: Record<OutcomeKind, number> = { complete: 0, terminate: 0, overquota: 0, security: 0 };
  for (const row of rows) {
    const kind = outcomeKinds.find((candidate) => candidate === row.outcome);
    if (kind) counts[kind] = Number(row.count);
  }
  return counts;
}
