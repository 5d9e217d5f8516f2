import { integer } from "../database/columns.ts";
import { execute, executeRows, one, type Program } from "../database/program.ts";
import type { SqlValue } from "../database/sql-dialect.ts";
import { command, insertRows, statement, type Statement } from "../database/statement.ts";
import { runParams, type RunParams } from "./inventory-records.ts";
import type { ChildRecordWrite, ChildReplacement, CommitOutcome, CycleBatch, RunInput } from "./store.ts";

/*
 * What a cycle writes, once for both stores, as programs over typed statements: the cycle's
 * transaction opens with `openCycle`, runs `writeCycleBatch` for each batch as the batches
 * stream in, and ends with `completeCycle`. Only the transaction itself is each driver's
 * (sqlite-cycle-transaction.ts: `BEGIN IMMEDIATE`, the WAL checkpoint after the commit;
 * postgres-cycle-transaction.ts: a connection kept for the cycle, leadership fencing): it lives
 * across the cycle's batches, which a program's one transaction does not. Rows are written many
 * at a time (`executeRows`): one statement per row on SQLite, where a prepared statement costs
 * no round trip, and one per chunk of rows (`unnest` arrays) on PostgreSQL; the dialect object
 * writes both texts (`rowsOf`), as it writes the lists of ids (`inList`).
 *
 * Why one program rather than the two hand-written drivers it replaced (which shared only SQL
 * fragments, and had already drifted: SQLite counted a quarantine key given twice in one batch as
 * two sightings, PostgreSQL as one). Measured with `bench:cycle-write`'s shape (10,000 surveys,
 * 6 qualifications and 2 quotas each, batches of 200), both versions in one process, alternated,
 * 10 fresh stores each, medians, on 2026-12-06 on this two-core machine at load 11–23 from other
 * work: PostgreSQL first cycle 4,831 surveys/s before, 4,691 after (client CPU 28.8 and 30.0 µs
 * per survey), update cycle 3,888 and 4,047/s (28.4 and 29.3 µs); SQLite first cycle 15,599 and
 * 14,615/s (18.1 and 18.6 µs), update cycle 12,967 and 10,375/s (24.6 and 26.2 µs; 8,669 and 8,383/s in another run of 8). Wall time
 * swings by 2× from run to run at that load; the CPU figures say what the program costs: about
 * 0.5–2 µs per survey on SQLite (each row built as an array and bound through the driver), not
 * a round trip or a plan. One text per write for both stores is worth that.
 */

/** Where a cycle's transaction stands: its time, its run row, the next sequence number of its changes. */
export interface CycleCursor {
  /** The cycle's time, ISO 8601, stamped on what it writes. */
  readonly at: string;
  readonly runId: number;
  readonly firstSequence: number;
  readonly nextSequence: number;
}

/** The change feed's counter, locked to the commit where writers can overlap (PostgreSQL replicas; SQLite's `BEGIN IMMEDIATE` already excludes them). */
const LOCK_LATEST_SEQUENCE = statement<[], number>(
  (dialect) => `SELECT value FROM counters WHERE name = 'changes' ${dialect.lockRowsClause ?? ""}`,
  (row) => integer(row.value),
);
/** The run row a cycle opens with (binds its time twice), so its changes can name it; completed at commit, gone with a rollback. */
const OPEN_CYCLE_RUN = statement<[startedAt: string, finishedAt: string], number>(
  "INSERT INTO runs (replica_id, run_trigger, status, started_at, finished_at, duration_ms, counts) VALUES ('', 'schedule', 'succeeded', ?, ?, 0, '{}') RETURNING id",
  (row) => integer(row.id),
);
const COMPLETE_CYCLE_RUN = command<
  [...RunParams, firstSequence: number | null, lastSequence: number | null, id: number]
>(`UPDATE runs SET replica_id = ?, run_trigger = ?, status = ?, started_at = ?, finished_at = ?, duration_ms = ?, counts = ?, error = ?,
      first_sequence = ?, last_sequence = ? WHERE id = ?`);
const SET_LATEST_SEQUENCE = command<[sequence: number]>("UPDATE counters SET value = ? WHERE name = 'changes'");
/** A succeeded cycle read the list whole: what it no longer carries is no longer wrong upstream. */
const RESOLVE_LIST_QUARANTINE = command<[at: string, runId: number]>(
  "UPDATE quarantine SET resolved_at = ? WHERE source = 'surveys' AND resolved_at IS NULL AND last_run_id IS DISTINCT FROM ?",
);

type SurveyRow = [
  id: number,
  firstSeenAt: string,
  changedAt: string,
  languageId: number,
  cpi: number,
  loi: number,
  ir: number,
  desktopAllowed: boolean,
  mobileAllowed: boolean,
  tabletAllowed: boolean,
  lastUpdated: string,
  qualUpdated: string,
  quotaUpdated: string,
  qualificationsMarker: string | null,
  quotasMarker: string | null,
  quotaCount: number,
  needsRefetch: boolean,
  rawHash: string,
  recordHash: string,
  raw: string,
];
/** A written survey replaces everything of the stored row but its first sighting; a closed survey is live again. */
const UPSERT_SURVEYS = insertRows<SurveyRow>(
  "surveys",
  [
    ["id", "bigint"],
    ["status", { literal: "'live'" }],
    ["closed_at", { literal: "NULL" }],
    ["first_seen_at", "time"],
    ["changed_at", "time"],
    ["language_id", "integer"],
    ["cpi", "decimal"],
    ["loi", "decimal"],
    ["ir", "decimal"],
    ["desktop_allowed", "bool"],
    ["mobile_allowed", "bool"],
    ["tablet_allowed", "bool"],
    ["last_updated", "text"],
    ["qual_updated", "text"],
    ["quota_updated", "text"],
    ["qualifications_marker", "text"],
    ["quotas_marker", "text"],
    ["quota_count", "integer"],
    ["needs_refetch", "bool"],
    ["raw_hash", "text"],
    ["record_hash", "text"],
    ["raw", "json"],
  ],
  `ON CONFLICT (id) DO UPDATE SET status = 'live', closed_at = NULL, changed_at = excluded.changed_at, language_id = excluded.language_id,
    cpi = excluded.cpi, loi = excluded.loi, ir = excluded.ir, desktop_allowed = excluded.desktop_allowed,
    mobile_allowed = excluded.mobile_allowed, tablet_allowed = excluded.tablet_allowed, last_updated = excluded.last_updated,
    qual_updated = excluded.qual_updated, quota_updated = excluded.quota_updated,
    qualifications_marker = excluded.qualifications_marker, quotas_marker = excluded.quotas_marker, quota_count = excluded.quota_count,
    needs_refetch = excluded.needs_refetch, raw_hash = excluded.raw_hash, record_hash = excluded.record_hash, raw = excluded.raw`,
);
const CLOSE_SURVEYS = command<[at: string, at: string, ids: readonly number[]]>(
  (dialect) =>
    `UPDATE surveys SET status = 'closed', closed_at = ?, changed_at = ? WHERE ${dialect.inList("id", "bigint")} AND status = 'live'`,
);
const RESOLVE_QUARANTINE_OF_SURVEYS = command<[at: string, ids: readonly number[]]>(
  (dialect) =>
    `UPDATE quarantine SET resolved_at = ? WHERE ${dialect.inList("survey_id", "bigint")} AND resolved_at IS NULL`,
);
const DELETE_CHILDREN = {
  qualifications: command<[surveyIds: readonly number[]]>(
    (dialect) => `DELETE FROM qualifications WHERE ${dialect.inList("survey_id", "bigint")}`,
  ),
  quotas: command<[surveyIds: readonly number[]]>(
    (dialect) => `DELETE FROM quotas WHERE ${dialect.inList("survey_id", "bigint")}`,
  ),
} as const;
const INSERT_CHILDREN = {
  qualifications: insertRows<
    [surveyId: number, position: number, id: number | null, typeId: number | null, raw: string]
  >("qualifications", [
    ["survey_id", "bigint"],
    ["position", "integer"],
    ["qualification_id", "integer"],
    ["qualification_type_id", "integer"],
    ["raw", "json"],
  ]),
  quotas: insertRows<[surveyId: number, position: number, id: number | null, raw: string]>("quotas", [
    ["survey_id", "bigint"],
    ["position", "integer"],
    ["quota_id", "bigint"],
    ["raw", "json"],
  ]),
} as const;
const INSERT_CHANGES = insertRows<[sequence: number, runId: number, type: string, surveyId: number, at: string]>(
  "changes",
  [
    ["sequence", "bigint"],
    ["run_id", "bigint"],
    ["type", "text"],
    ["survey_id", "bigint"],
    ["occurred_at", "time"],
  ],
);
/** A quarantined item seen again: one more sighting, the latest item and issues, unresolved again. */
const UPSERT_QUARANTINE = insertRows<
  [
    key: string,
    surveyId: number | null,
    source: string,
    at: string,
    at: string,
    runId: number,
    item: string,
    issues: string,
  ]
>(
  "quarantine",
  [
    ["key", "text"],
    ["survey_id", "bigint"],
    ["source", "text"],
    ["first_seen_at", "time"],
    ["last_seen_at", "time"],
    ["times_seen", { literal: "1" }],
    ["last_run_id", "bigint"],
    ["item", "text"],
    ["issues", "json"],
  ],
  `ON CONFLICT (key) DO UPDATE SET last_seen_at = excluded.last_seen_at, times_seen = quarantine.times_seen + 1,
    last_run_id = excluded.last_run_id, item = excluded.item, issues = excluded.issues, source = excluded.source, resolved_at = NULL`,
);
const RESOLVE_QUARANTINE_KEYS = command<[at: string, keys: readonly string[]]>(
  (dialect) => `UPDATE quarantine SET resolved_at = ? WHERE ${dialect.inList("key", "text")} AND resolved_at IS NULL`,
);

/** Opens a cycle at `at`: its run row, and the change feed's next sequence number (the counter locked to the commit). */
export function* openCycle(at: Date): Program<CycleCursor> {
  const time = at.toISOString();
  const firstSequence = (yield* one(LOCK_LATEST_SEQUENCE)) + 1;
  const runId = yield* one(OPEN_CYCLE_RUN, time, time);
  return { at: time, runId, firstSequence, nextSequence: firstSequence };
}

/** Writes one batch of the cycle; the cursor after it (its changes took the next sequence numbers, in order). */
export function* writeCycleBatch(cycle: CycleCursor, batch: CycleBatch): Program<CycleCursor> {
  const { at, runId } = cycle;
  yield* executeRows(
    UPSERT_SURVEYS,
    batch.surveys.map((survey): SurveyRow => {
      const c = survey.columns;
      return [
        survey.id,
        at,
        at,
        c.languageId,
        c.cpi,
        c.loi,
        c.ir,
        c.desktopAllowed,
        c.mobileAllowed,
        c.tabletAllowed,
        c.lastUpdated,
        c.qualUpdated,
        c.quotaUpdated,
        survey.qualificationsMarker,
        survey.quotasMarker,
        survey.quotaCount,
        survey.needsRefetch,
        survey.rawHash,
        survey.recordHash,
        survey.raw,
      ];
    }),
  );
  if (batch.closedSurveyIds.length > 0) {
    yield* execute(CLOSE_SURVEYS, at, at, batch.closedSurveyIds);
    yield* execute(RESOLVE_QUARANTINE_OF_SURVEYS, at, batch.closedSurveyIds);
  }
  yield* replaceChildren(
    DELETE_CHILDREN.qualifications,
    INSERT_CHILDREN.qualifications,
    batch.qualifications,
    (surveyId, position, record) => [surveyId, position, record.key, record.typeId, record.raw],
  );
  yield* replaceChildren(DELETE_CHILDREN.quotas, INSERT_CHILDREN.quotas, batch.quotas, (surveyId, position, record) => [
    surveyId,
    position,
    record.key,
    record.raw,
  ]);
  const first = cycle.nextSequence;
  yield* executeRows(
    INSERT_CHANGES,
    batch.changes.map((change, index) => [first + index, runId, change.type, change.surveyId, at] as const),
  );
  // One row per key: a many-row upsert may touch a row once (PostgreSQL), and a key seen twice
  // in one batch is one sighting on both stores. The last item of each key stands.
  const quarantined = [...new Map(batch.quarantine.map((item) => [item.key, item])).values()];
  yield* executeRows(
    UPSERT_QUARANTINE,
    quarantined.map((item) => [item.key, item.surveyId, item.source, at, at, runId, item.item, item.issues] as const),
  );
  if (batch.resolvedQuarantineKeys.length > 0)
    yield* execute(RESOLVE_QUARANTINE_KEYS, at, batch.resolvedQuarantineKeys);
  return { ...cycle, nextSequence: first + batch.changes.length };
}

/** Replaces the stored children of each survey of `replacements` (`remove`) with its records, in upstream order (`insert`). */
function* replaceChildren<Row extends readonly SqlValue[]>(
  remove: Statement<[surveyIds: readonly number[]], never>,
  insert: Statement<Row, never>,
  replacements: readonly ChildReplacement[],
  row: (surveyId: number, position: number, record: ChildRecordWrite) => Readonly<Row>,
): Program<void> {
  if (replacements.length === 0) return;
  yield* execute(
    remove,
    replacements.map((replacement) => replacement.surveyId),
  );
  yield* executeRows(
    insert,
    replacements.flatMap((replacement) =>
      replacement.records.map((record, position) => row(replacement.surveyId, position, record)),
    ),
  );
}

/** Records the run on its row and moves the change feed's counter past the cycle's changes; what the commit allocated. */
export function* completeCycle(cycle: CycleCursor, run: RunInput): Program<CommitOutcome> {
  const hasChanges = cycle.nextSequence > cycle.firstSequence;
  const firstSequence = hasChanges ? cycle.firstSequence : null;
  const lastSequence = hasChanges ? cycle.nextSequence - 1 : null;
  yield* execute(COMPLETE_CYCLE_RUN, ...runParams(run), firstSequence, lastSequence, cycle.runId);
  if (lastSequence !== null) yield* execute(SET_LATEST_SEQUENCE, lastSequence);
  if (run.status === "succeeded") yield* execute(RESOLVE_LIST_QUARANTINE, cycle.at, cycle.runId);
  return { runId: cycle.runId, firstSequence, lastSequence };
}
