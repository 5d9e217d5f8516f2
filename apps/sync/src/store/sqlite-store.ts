import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { StoreError } from "../errors.ts";
import { migrationStatements, migrations } from "./migrations.ts";
import { surveyQueryWhere } from "./sql-filters.ts";
import type {
  ChangeRecord,
  CollectionInput,
  CollectionRecord,
  CommitOutcome,
  CycleCommit,
  Leadership,
  QuarantineRecord,
  RunInput,
  RunRecord,
  StoreStats,
  StoredSurveyState,
  SurveyDetail,
  SurveyPage,
  SurveyQuery,
  SurveyStatus,
  SurveySummary,
  SyncStore,
} from "./store.ts";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file; its directory is created when missing. `:memory:` for a throwaway store. */
  readonly path: string;
}

type Row = Record<string, SQLInputValue>;

/** The one process using a SQLite file is always the leader. */
const soleLeader: Leadership = {
  acquire: () => Promise.resolve(true),
  isLeader: true,
  release: () => Promise.resolve(),
};

/**
 * Opens (creating and migrating when needed) the embedded SQLite store via `node:sqlite`: no
 * server, no native build. WAL journaling keeps readers unblocked during a cycle's commit and
 * makes a killed process lose nothing that was committed.
 *
 * One process per file: SQLite serialises writers but two sync processes would each believe
 * they lead. Use PostgreSQL for replicas.
 *
 * @example
 * ```ts
 * const store = await openSqliteStore({ path: "./data/sds.db" });
 * ```
 */
export function openSqliteStore(options: SqliteStoreOptions): Promise<SyncStore> {
  try {
    if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
    const db = new DatabaseSync(options.path);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    migrate(db);
    return Promise.resolve(new SqliteStore(db));
  } catch (error) {
    return Promise.reject(new StoreError(`cannot open SQLite store at ${options.path}: ${(error as Error).message}`, { cause: error }));
  }
}

function migrate(db: DatabaseSync): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  const applied = db.prepare("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations").get() as { version: number };
  for (const migration of migrations.filter((candidate) => candidate.version > applied.version)) {
    inTransaction(db, () => {
      for (const statement of migrationStatements(migration, "sqlite")) db.exec(statement);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(migration.version, migration.name, new Date().toISOString());
    });
  }
}

function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

const bool = (value: boolean): number => (value ? 1 : 0);

class SqliteStore implements SyncStore {
  readonly kind = "sqlite" as const;
  readonly leadership = soleLeader;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #closed = false;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }

  loadSurveyStates(): Promise<StoredSurveyState[]> {
    const rows = this.#statement(
      "SELECT id, status, raw_hash, record_hash, qual_updated, quota_updated, qualifications_marker, quotas_marker, needs_refetch, quota_count FROM surveys",
    ).all() as Row[];
    return Promise.resolve(
      rows.map((row) => ({
        id: Number(row.id),
        status: row.status as SurveyStatus,
        rawHash: row.raw_hash as string,
        recordHash: row.record_hash as string,
        qualUpdated: row.qual_updated as string,
        quotaUpdated: row.quota_updated as string,
        qualificationsMarker: row.qualifications_marker as string | null,
        quotasMarker: row.quotas_marker as string | null,
        needsRefetch: row.needs_refetch === 1,
        quotaCount: Number(row.quota_count),
      })),
    );
  }

  commitCycle(commit: CycleCommit): Promise<CommitOutcome> {
    try {
      return Promise.resolve(inTransaction(this.#db, () => this.#writeCycle(commit)));
    } catch (error) {
      return Promise.reject(new StoreError(`cycle commit failed: ${(error as Error).message}`, { cause: error }));
    }
  }

  #writeCycle(commit: CycleCommit): CommitOutcome {
    const at = commit.at.toISOString();
    const counter = this.#statement("SELECT value FROM counters WHERE name = 'changes'").get() as { value: number };
    const firstSequence = commit.changes.length > 0 ? counter.value + 1 : null;
    const lastSequence = commit.changes.length > 0 ? counter.value + commit.changes.length : null;
    const runId = this.#insertRun(commit.run, firstSequence, lastSequence);

    const upsertSurvey = this.#statement(`
      INSERT INTO surveys (id, status, closed_at, first_seen_at, changed_at, language_id, cpi, loi, ir, desktop_allowed, mobile_allowed,
        tablet_allowed, last_updated, qual_updated, quota_updated, qualifications_marker, quotas_marker, quota_count, needs_refetch, raw_hash, record_hash, raw)
      VALUES (?, 'live', NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET status = 'live', closed_at = NULL, changed_at = excluded.changed_at, language_id = excluded.language_id,
        cpi = excluded.cpi, loi = excluded.loi, ir = excluded.ir, desktop_allowed = excluded.desktop_allowed,
        mobile_allowed = excluded.mobile_allowed, tablet_allowed = excluded.tablet_allowed, last_updated = excluded.last_updated,
        qual_updated = excluded.qual_updated, quota_updated = excluded.quota_updated,
        qualifications_marker = excluded.qualifications_marker, quotas_marker = excluded.quotas_marker,
        quota_count = excluded.quota_count, needs_refetch = excluded.needs_refetch, raw_hash = excluded.raw_hash, record_hash = excluded.record_hash, raw = excluded.raw`);
    for (const survey of commit.surveys) {
      const c = survey.columns;
      upsertSurvey.run(
        survey.id, at, at, c.languageId, c.cpi, c.loi, c.ir, bool(c.desktopAllowed), bool(c.mobileAllowed), bool(c.tabletAllowed),
        c.lastUpdated, c.qualUpdated, c.quotaUpdated, survey.qualificationsMarker, survey.quotasMarker, survey.quotaCount,
        bool(survey.needsRefetch), survey.rawHash, survey.recordHash, survey.raw,
      );
    }

    const closeSurvey = this.#statement("UPDATE surveys SET status = 'closed', closed_at = ?, changed_at = ? WHERE id = ? AND status = 'live'");
    for (const id of commit.closedSurveyIds) closeSurvey.run(at, at, id);

    const deleteQualifications = this.#statement("DELETE FROM qualifications WHERE survey_id = ?");
    const insertQualification = this.#statement("INSERT INTO qualifications (survey_id, position, qualification_id, qualification_type_id, raw) VALUES (?, ?, ?, ?, ?)");
    for (const replacement of commit.qualifications) {
      deleteQualifications.run(replacement.surveyId);
      replacement.records.forEach((record, position) => insertQualification.run(replacement.surveyId, position, record.key, record.typeId, record.raw));
    }
    const deleteQuotas = this.#statement("DELETE FROM quotas WHERE survey_id = ?");
    const insertQuota = this.#statement("INSERT INTO quotas (survey_id, position, quota_id, raw) VALUES (?, ?, ?, ?)");
    for (const replacement of commit.quotas) {
      deleteQuotas.run(replacement.surveyId);
      replacement.records.forEach((record, position) => insertQuota.run(replacement.surveyId, position, record.key, record.raw));
    }

    if (firstSequence !== null && lastSequence !== null) {
      const insertChange = this.#statement("INSERT INTO changes (sequence, run_id, type, survey_id, occurred_at) VALUES (?, ?, ?, ?, ?)");
      commit.changes.forEach((change, index) => insertChange.run(firstSequence + index, runId, change.type, change.surveyId, at));
      this.#statement("UPDATE counters SET value = ? WHERE name = 'changes'").run(lastSequence);
    }

    const quarantine = this.#statement(`
      INSERT INTO quarantine (key, survey_id, source, first_seen_at, last_seen_at, times_seen, last_run_id, item, issues)
      VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET last_seen_at = excluded.last_seen_at, times_seen = quarantine.times_seen + 1,
        last_run_id = excluded.last_run_id, item = excluded.item, issues = excluded.issues, source = excluded.source`);
    for (const item of commit.quarantine) quarantine.run(item.key, item.surveyId, item.source, at, at, runId, item.item, item.issues);

    return { runId, firstSequence, lastSequence };
  }

  #insertRun(run: RunInput, firstSequence: number | null, lastSequence: number | null): number {
    const row = this.#statement(`
      INSERT INTO runs (replica_id, run_trigger, status, started_at, finished_at, duration_ms, counts, error, first_sequence, last_sequence)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`).get(
      run.replicaId, run.trigger, run.status, run.startedAt.toISOString(), run.finishedAt.toISOString(),
      Math.round(run.finishedAt.getTime() - run.startedAt.getTime()), JSON.stringify(run.counts), run.error, firstSequence, lastSequence,
    ) as { id: number };
    return row.id;
  }

  recordRun(run: RunInput): Promise<number> {
    try {
      return Promise.resolve(inTransaction(this.#db, () => this.#insertRun(run, null, null)));
    } catch (error) {
      return Promise.reject(new StoreError(`run record failed: ${(error as Error).message}`, { cause: error }));
    }
  }

  listSurveys(query: SurveyQuery): Promise<SurveyPage> {
    const { where, params } = surveyQueryWhere(query, () => "?", (time) => time.toISOString(), "1");
    const rows = this.#db
      .prepare(`SELECT ${summaryColumns} FROM surveys ${where} ORDER BY id LIMIT ?`)
      .all(...(params as SQLInputValue[]), query.limit + 1) as Row[];
    const hasMore = rows.length > query.limit;
    const surveys = rows.slice(0, query.limit).map(toSummary);
    return Promise.resolve({ surveys, hasMore, lastId: hasMore ? (surveys.at(-1)?.id ?? null) : null });
  }

  getSurvey(id: number): Promise<SurveyDetail | undefined> {
    const row = this.#statement(`SELECT ${summaryColumns} FROM surveys WHERE id = ?`).get(id) as Row | undefined;
    if (!row) return Promise.resolve(undefined);
    const children = (table: "qualifications" | "quotas") =>
      (this.#statement(`SELECT raw FROM ${table} WHERE survey_id = ? ORDER BY position`).all(id) as Row[]).map((child) => JSON.parse(child.raw as string) as unknown);
    return Promise.resolve({ ...toSummary(row), qualifications: children("qualifications"), quotas: children("quotas") });
  }

  listChanges(after: number, limit: number): Promise<ChangeRecord[]> {
    const rows = this.#statement("SELECT sequence, type, survey_id, run_id, occurred_at FROM changes WHERE sequence > ? ORDER BY sequence LIMIT ?").all(after, limit) as Row[];
    return Promise.resolve(
      rows.map((row) => ({
        sequence: Number(row.sequence),
        type: row.type as ChangeRecord["type"],
        surveyId: Number(row.survey_id),
        runId: Number(row.run_id),
        occurredAt: row.occurred_at as string,
      })),
    );
  }

  latestSequence(): Promise<number> {
    const row = this.#statement("SELECT value FROM counters WHERE name = 'changes'").get() as { value: number };
    return Promise.resolve(row.value);
  }

  listRuns(limit: number): Promise<RunRecord[]> {
    const rows = this.#statement(`SELECT * FROM runs ORDER BY id DESC LIMIT ?`).all(limit) as Row[];
    return Promise.resolve(rows.map(toRunRecord));
  }

  lastSuccessfulRun(): Promise<RunRecord | undefined> {
    const row = this.#statement("SELECT * FROM runs WHERE status = 'succeeded' ORDER BY id DESC LIMIT 1").get() as Row | undefined;
    return Promise.resolve(row ? toRunRecord(row) : undefined);
  }

  stats(): Promise<StoreStats> {
    const counts = this.#statement(`
      SELECT COALESCE(SUM(status = 'live'), 0) AS live, COALESCE(SUM(status = 'closed'), 0) AS closed,
        COALESCE(SUM(needs_refetch), 0) AS needs_refetch FROM surveys`).get() as Row;
    const quarantined = this.#statement("SELECT COUNT(*) AS count FROM quarantine").get() as Row;
    const sequence = this.#statement("SELECT value FROM counters WHERE name = 'changes'").get() as Row;
    return Promise.resolve({
      live: Number(counts.live),
      closed: Number(counts.closed),
      needsRefetch: Number(counts.needs_refetch),
      quarantined: Number(quarantined.count),
      latestSequence: Number(sequence.value),
    });
  }

  listQuarantine(limit: number): Promise<QuarantineRecord[]> {
    const rows = this.#statement("SELECT * FROM quarantine ORDER BY last_seen_at DESC, key LIMIT ?").all(limit) as Row[];
    return Promise.resolve(
      rows.map((row) => ({
        key: row.key as string,
        surveyId: row.survey_id === null ? null : Number(row.survey_id),
        source: row.source as string,
        firstSeenAt: row.first_seen_at as string,
        lastSeenAt: row.last_seen_at as string,
        timesSeen: Number(row.times_seen),
        item: JSON.parse(row.item as string) as unknown,
        issues: JSON.parse(row.issues as string) as unknown,
      })),
    );
  }

  saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Promise<void> {
    try {
      inTransaction(this.#db, () => {
        const upsert = this.#statement(
          "INSERT INTO collections (name, fetched_at, body) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body",
        );
        for (const collection of collections) upsert.run(collection.name, fetchedAt.toISOString(), collection.body);
      });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(new StoreError(`saving collections failed: ${(error as Error).message}`, { cause: error }));
    }
  }

  listCollections(): Promise<CollectionRecord[]> {
    const rows = this.#statement("SELECT name, fetched_at, body FROM collections ORDER BY name").all() as Row[];
    return Promise.resolve(rows.map((row) => ({ name: row.name as string, fetchedAt: row.fetched_at as string, body: JSON.parse(row.body as string) as unknown })));
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#db.close();
    }
    return Promise.resolve();
  }
}

const summaryColumns = "id, status, closed_at, first_seen_at, changed_at, needs_refetch, raw";

function toSummary(row: Row): SurveySummary {
  return {
    id: Number(row.id),
    status: row.status as SurveyStatus,
    closedAt: row.closed_at as string | null,
    firstSeenAt: row.first_seen_at as string,
    changedAt: row.changed_at as string,
    needsRefetch: row.needs_refetch === 1,
    survey: JSON.parse(row.raw as string) as unknown,
  };
}

function toRunRecord(row: Row): RunRecord {
  return {
    id: Number(row.id),
    replicaId: row.replica_id as string,
    trigger: row.run_trigger as RunRecord["trigger"],
    status: row.status as RunRecord["status"],
    startedAt: new Date(row.started_at as string),
    finishedAt: new Date(row.finished_at as string),
    durationMs: Number(row.duration_ms),
    counts: JSON.parse(row.counts as string) as RunRecord["counts"],
    error: row.error as string | null,
    firstSequence: row.first_sequence === null ? null : Number(row.first_sequence),
    lastSequence: row.last_sequence === null ? null : Number(row.last_sequence),
  };
}
