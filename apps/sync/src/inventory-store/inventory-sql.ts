import { surveyQueryWhere } from "./sql-filters.ts";
import type { RunInput, SurveyQuery } from "./store.ts";

/*
 * The statements of the inventory store that both dialects answer with the same SQL, written
 * once with `?` placeholders: node:sqlite takes them as they are, the PostgreSQL store runs them
 * through `postgresQuery` (database/postgres-query.ts), which numbers the placeholders. Times are
 * bound as ISO 8601 text (SQLite stores that text; PostgreSQL reads it into timestamptz), so the
 * parameters are shared too. What stays per driver is what really differs: the cycle's bulk
 * writes (`unnest` arrays on PostgreSQL, one prepared row at a time on SQLite), reads by an id
 * array, locks and transactions.
 */

/** The columns `toSurveySummary` (inventory-rows.ts) reads. */
export const surveySummaryColumns = "id, status, closed_at, first_seen_at, changed_at, needs_refetch, raw";

/** The shared statements, by what they do. */
export const inventorySql = {
  surveyStates:
    "SELECT id, status, raw_hash, record_hash, qual_updated, quota_updated, qualifications_marker, quotas_marker, needs_refetch, quota_count FROM surveys",
  survey: `SELECT ${surveySummaryColumns} FROM surveys WHERE id = ?`,
  qualificationsOf: "SELECT raw FROM qualifications WHERE survey_id = ? ORDER BY position",
  quotasOf: "SELECT raw FROM quotas WHERE survey_id = ? ORDER BY position",
  refetchPendingIds: "SELECT id FROM surveys WHERE status = 'live' AND needs_refetch ORDER BY id",
  changesAfter:
    "SELECT sequence, type, survey_id, run_id, occurred_at FROM changes WHERE sequence > ? ORDER BY sequence LIMIT ?",
  latestSequence: "SELECT value FROM counters WHERE name = 'changes'",
  recentRuns: "SELECT * FROM runs ORDER BY id DESC LIMIT ?",
  lastSuccessfulRun: "SELECT * FROM runs WHERE status = 'succeeded' ORDER BY id DESC LIMIT 1",
  // One statement, so the counts come from one snapshot.
  stats: `
    SELECT COALESCE(SUM(CASE WHEN status = 'live' THEN 1 ELSE 0 END), 0) AS live,
      COALESCE(SUM(CASE WHEN status = 'closed' THEN 1 ELSE 0 END), 0) AS closed,
      COALESCE(SUM(CASE WHEN needs_refetch AND status = 'live' THEN 1 ELSE 0 END), 0) AS needs_refetch,
      (SELECT COUNT(*) FROM quarantine WHERE resolved_at IS NULL) AS quarantined,
      (SELECT value FROM counters WHERE name = 'changes') AS latest_sequence
    FROM surveys`,
  countByLanguage: `
    SELECT language_id, SUM(CASE WHEN status = 'live' THEN 1 ELSE 0 END) AS live, SUM(CASE WHEN status = 'closed' THEN 1 ELSE 0 END) AS closed
    FROM surveys GROUP BY language_id ORDER BY language_id`,
  unresolvedQuarantine: "SELECT * FROM quarantine WHERE resolved_at IS NULL ORDER BY last_seen_at DESC, key LIMIT ?",
  collections: "SELECT name, fetched_at, body FROM collections ORDER BY name",
  /** Binds name. */
  collection: "SELECT name, fetched_at, body FROM collections WHERE name = ?",
  /** Binds name, fetched_at, body. */
  upsertCollection:
    "INSERT INTO collections (name, fetched_at, body) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body",
  /** The feed's horizon in one statement, so the feed and the counter come from one snapshot. */
  feedHorizon:
    "SELECT COALESCE((SELECT MIN(sequence) FROM changes) - 1, (SELECT value FROM counters WHERE name = 'changes')) AS horizon",
  /** Binds {@link runParams}, then first_sequence, last_sequence. */
  insertRun: `
    INSERT INTO runs (replica_id, run_trigger, status, started_at, finished_at, duration_ms, counts, error, first_sequence, last_sequence)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,

  /** The run row a cycle opens with (binds its time twice), so its changes can name it; completed at commit, gone with a rollback. */
  openCycleRun:
    "INSERT INTO runs (replica_id, run_trigger, status, started_at, finished_at, duration_ms, counts) VALUES ('', 'schedule', 'succeeded', ?, ?, 0, '{}') RETURNING id",
  /** Binds {@link runParams}, then first_sequence, last_sequence, id. */
  completeCycleRun: `
    UPDATE runs SET replica_id = ?, run_trigger = ?, status = ?, started_at = ?, finished_at = ?, duration_ms = ?, counts = ?, error = ?,
      first_sequence = ?, last_sequence = ? WHERE id = ?`,
  setLatestSequence: "UPDATE counters SET value = ? WHERE name = 'changes'",
  /** A succeeded cycle read the list whole: what it no longer carries is no longer wrong upstream. Binds the time and the run id. */
  resolveListQuarantine:
    "UPDATE quarantine SET resolved_at = ? WHERE source = 'surveys' AND resolved_at IS NULL AND last_run_id IS DISTINCT FROM ?",
} as const;

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

/** The first eight parameters of {@link inventorySql}'s `insertRun` and `completeCycleRun`. */
export function runParams(run: RunInput): (string | number | null)[] {
  return [
    run.replicaId,
    run.trigger,
    run.status,
    run.startedAt.toISOString(),
    run.finishedAt.toISOString(),
    Math.round(run.finishedAt.getTime() - run.startedAt.getTime()),
    JSON.stringify(run.counts),
    run.error,
  ];
}

/** One page of `GET /v1/surveys`: the statement and its parameters (one row more than the page, to tell whether more follow). */
export function surveyPageSql(query: SurveyQuery): { readonly sql: string; readonly params: unknown[] } {
  const { where, params } = surveyQueryWhere(query);
  return {
    sql: `SELECT ${surveySummaryColumns} FROM surveys ${where} ORDER BY id LIMIT ?`,
    params: [...params, query.limit + 1],
  };
}
