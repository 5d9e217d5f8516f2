/*
 * The SQL fragments both drivers' cycle transactions share (sqlite-cycle-transaction.ts writes a
 * row at a time with them, postgres-cycle-transaction.ts a chunk of `unnest` arrays), so what a
 * cycle writes of a survey or a quarantined item cannot drift between the stores.
 */

/** The columns a cycle writes of a survey, in the order both upserts bind them after `id, status, closed_at, first_seen_at, changed_at`. */
export const surveyWriteColumns =
  "language_id, cpi, loi, ir, desktop_allowed, mobile_allowed, tablet_allowed, last_updated, qual_updated, quota_updated, qualifications_marker, quotas_marker, quota_count, needs_refetch, raw_hash, record_hash, raw";

/** What a written survey replaces of the stored row: everything but its first sighting; a closed survey is live again. */
export const surveyUpsertConflict = `
  ON CONFLICT (id) DO UPDATE SET status = 'live', closed_at = NULL, changed_at = excluded.changed_at, language_id = excluded.language_id,
    cpi = excluded.cpi, loi = excluded.loi, ir = excluded.ir, desktop_allowed = excluded.desktop_allowed,
    mobile_allowed = excluded.mobile_allowed, tablet_allowed = excluded.tablet_allowed, last_updated = excluded.last_updated,
    qual_updated = excluded.qual_updated, quota_updated = excluded.quota_updated,
    qualifications_marker = excluded.qualifications_marker, quotas_marker = excluded.quotas_marker, quota_count = excluded.quota_count,
    needs_refetch = excluded.needs_refetch, raw_hash = excluded.raw_hash, record_hash = excluded.record_hash, raw = excluded.raw`;

/** The quarantine columns both upserts insert. */
export const quarantineColumns =
  "key, survey_id, source, first_seen_at, last_seen_at, times_seen, last_run_id, item, issues";

/** A quarantined item seen again: one more sighting, the latest item and issues, unresolved again. */
export const quarantineUpsertConflict = `
  ON CONFLICT (key) DO UPDATE SET last_seen_at = excluded.last_seen_at, times_seen = quarantine.times_seen + 1,
    last_run_id = excluded.last_run_id, item = excluded.item, issues = excluded.issues, source = excluded.source, resolved_at = NULL`;
