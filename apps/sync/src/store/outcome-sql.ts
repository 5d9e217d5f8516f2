/** Entries per survey by their latest outcome; the earnings sum the `Cpi` of completed entries. Shared by both dialects. */
export const conversionSql = `
SELECT survey_id, COUNT(*) AS entries,
  SUM(CASE WHEN outcome = 'complete' THEN 1 ELSE 0 END) AS completes,
  SUM(CASE WHEN outcome = 'terminate' THEN 1 ELSE 0 END) AS terminates,
  SUM(CASE WHEN outcome = 'overquota' THEN 1 ELSE 0 END) AS overquotas,
  SUM(CASE WHEN outcome = 'security' THEN 1 ELSE 0 END) AS security_terminates,
  COALESCE(SUM(CASE WHEN outcome = 'complete' THEN cpi ELSE 0 END), 0) AS earnings
FROM loop_entries GROUP BY survey_id ORDER BY survey_id`;
