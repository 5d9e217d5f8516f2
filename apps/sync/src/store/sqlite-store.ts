import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { StoreError } from "../common/errors.ts";
import { withStoreErrors } from "../database/store-errors.ts";
import { syncLedger } from "./migrations.ts";
import { inSqliteTransaction as inTransaction, migrateSqlite } from "../database/sqlite-migrate.ts";
import { SqliteCycleTransaction } from "./sqlite-cycle-transaction.ts";
import { pruneSqliteBatch, SQLITE_FEED_HORIZON } from "./sqlite-retention.ts";
import type { PruneBatchOutcome, PruneTarget } from "./retention.ts";
import { surveyQueryWhere } from "./sql-filters.ts";
import type {
  ChangeRecord,
  CollectionInput,
  CollectionRecord,
  CommitOutcome,
  CycleCommit,
  CycleTransaction,
  Leadership,
  QuarantineRecord,
  RunInput,
  RunRecord,
  LanguageCount,
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
    migrateSqlite(db, syncLedger);
    // Reads go through a second connection, so an open cycle transaction stays invisible to them
    // (WAL snapshots). An in-memory database cannot be shared between connections: one serves both.
    let reader = db;
    if (options.path !== ":memory:") {
      reader = new DatabaseSync(options.path);
      reader.exec("PRAGMA busy_timeout = 5000;");
    }
    return Promise.resolve(withStoreErrors(new SqliteStore(db, reader)));
  } catch (error) {
    return Promise.reject(new StoreError(`cannot open SQLite store at ${options.path}: ${(error as Error).message}`, { cause: error }));
  }
}

class SqliteStore implements SyncStore {
  readonly kind = "sqlite" as const;
  readonly leadership = soleLeader;
  readonly #db: DatabaseSync;
  readonly #reader: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #readStatements = new Map<string, StatementSync>();
  #closed = false;
  #cycleOpen = false;
  #checkpoint: NodeJS.Immediate | undefined;

  constructor(db: DatabaseSync, reader: DatabaseSync) {
    this.#db = db;
    this.#reader = reader;
  }

  /** A prepared statement on the writer connection. */
  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }

  /** A prepared statement on the reader connection. */
  #read(sql: string): StatementSync {
    let statement = this.#readStatements.get(sql);
    if (!statement) this.#readStatements.set(sql, (statement = this.#reader.prepare(sql)));
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

  beginCycle(at: Date): Promise<CycleTransaction> {
    if (this.#cycleOpen) return Promise.reject(new StoreError("a cycle transaction is already open"));
    this.#cycleOpen = true;
    const transaction = SqliteCycleTransaction.begin(this.#db, (sql) => this.#statement(sql), at, (committed) => {
      this.#cycleOpen = false;
      if (committed) this.#checkpointSoon();
    });
    return Promise.resolve(withStoreErrors(transaction, () => "cycle commit"));
  }

  async commitCycle(commit: CycleCommit): Promise<CommitOutcome> {
    const transaction = await this.beginCycle(commit.at);
    try {
      await transaction.write(commit);
      return await transaction.commit(commit.run);
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
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
    return Promise.resolve(inTransaction(this.#db, () => this.#insertRun(run, null, null)));
  }

  listSurveys(query: SurveyQuery): Promise<SurveyPage> {
    const { where, params } = surveyQueryWhere(query, () => "?", (time) => time.toISOString(), "1");
    const rows = this.#reader
      .prepare(`SELECT ${summaryColumns} FROM surveys ${where} ORDER BY id LIMIT ?`)
      .all(...(params as SQLInputValue[]), query.limit + 1) as Row[];
    const hasMore = rows.length > query.limit;
    const surveys = rows.slice(0, query.limit).map(toSummary);
    return Promise.resolve({ surveys, hasMore, lastId: hasMore ? (surveys.at(-1)?.id ?? null) : null });
  }

  getSurvey(id: number): Promise<SurveyDetail | undefined> {
    const row = this.#read(`SELECT ${summaryColumns} FROM surveys WHERE id = ?`).get(id) as Row | undefined;
    if (!row) return Promise.resolve(undefined);
    const children = (table: "qualifications" | "quotas") =>
      (this.#read(`SELECT raw FROM ${table} WHERE survey_id = ? ORDER BY position`).all(id) as Row[]).map((child) => JSON.parse(child.raw as string) as unknown);
    return Promise.resolve({ ...toSummary(row), qualifications: children("qualifications"), quotas: children("quotas") });
  }

  async getSurveys(ids: readonly number[]): Promise<SurveyDetail[]> {
    const details: SurveyDetail[] = [];
    for (const id of ids) {
      const detail = await this.getSurvey(id);
      if (detail) details.push(detail);
    }
    return details;
  }

  surveyRecords(ids: readonly number[]): Promise<Map<number, string>> {
    const records = new Map<number, string>();
    // Point reads on the primary key: a few microseconds each in-process, and one statement for any count.
    const statement = this.#read("SELECT raw FROM surveys WHERE id = ?");
    for (const id of ids) {
      const row = statement.get(id) as Row | undefined;
      if (row) records.set(id, row.raw as string);
    }
    return Promise.resolve(records);
  }

  refetchPendingIds(): Promise<number[]> {
    const rows = this.#read("SELECT id FROM surveys WHERE status = 'live' AND needs_refetch = 1 ORDER BY id").all() as Row[];
    return Promise.resolve(rows.map((row) => Number(row.id)));
  }

  listChanges(after: number, limit: number): Promise<ChangeRecord[]> {
    const rows = this.#read("SELECT sequence, type, survey_id, run_id, occurred_at FROM changes WHERE sequence > ? ORDER BY sequence LIMIT ?").all(after, limit) as Row[];
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
    const row = this.#read("SELECT value FROM counters WHERE name = 'changes'").get() as { value: number };
    return Promise.resolve(row.value);
  }

  listRuns(limit: number): Promise<RunRecord[]> {
    const rows = this.#read(`SELECT * FROM runs ORDER BY id DESC LIMIT ?`).all(limit) as Row[];
    return Promise.resolve(rows.map(toRunRecord));
  }

  lastSuccessfulRun(): Promise<RunRecord | undefined> {
    const row = this.#read("SELECT * FROM runs WHERE status = 'succeeded' ORDER BY id DESC LIMIT 1").get() as Row | undefined;
    return Promise.resolve(row ? toRunRecord(row) : undefined);
  }

  stats(): Promise<StoreStats> {
    const counts = this.#read(`
      SELECT COALESCE(SUM(status = 'live'), 0) AS live, COALESCE(SUM(status = 'closed'), 0) AS closed,
        COALESCE(SUM(needs_refetch AND status = 'live'), 0) AS needs_refetch FROM surveys`).get() as Row;
    const quarantined = this.#read("SELECT COUNT(*) AS count FROM quarantine WHERE resolved_at IS NULL").get() as Row;
    const sequence = this.#read("SELECT value FROM counters WHERE name = 'changes'").get() as Row;
    return Promise.resolve({
      live: Number(counts.live),
      closed: Number(counts.closed),
      needsRefetch: Number(counts.needs_refetch),
      quarantined: Number(quarantined.count),
      latestSequence: Number(sequence.value),
    });
  }

  listQuarantine(limit: number): Promise<QuarantineRecord[]> {
    const rows = this.#read("SELECT * FROM quarantine WHERE resolved_at IS NULL ORDER BY last_seen_at DESC, key LIMIT ?").all(limit) as Row[];
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

  pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // The writer connection is the cycle's while its transaction is open: a batch now would join it.
    if (this.#cycleOpen) return Promise.resolve({ deleted: 0, more: true, deferred: true });
    return Promise.resolve(pruneSqliteBatch(this.#db, (sql) => this.#statement(sql), target, before, limit));
  }

  countByLanguage(): Promise<LanguageCount[]> {
    const rows = this.#read(
      "SELECT language_id, SUM(status = 'live') AS live, SUM(status = 'closed') AS closed FROM surveys GROUP BY language_id ORDER BY language_id",
    ).all() as { language_id: number; live: number; closed: number }[];
    return Promise.resolve(rows.map((row) => ({ languageId: row.language_id, live: row.live, closed: row.closed })));
  }

  feedHorizon(): Promise<number> {
    return Promise.resolve((this.#read(SQLITE_FEED_HORIZON).get() as { horizon: number }).horizon);
  }

  saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Promise<void> {
    inTransaction(this.#db, () => {
      const upsert = this.#statement(
        "INSERT INTO collections (name, fetched_at, body) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body",
      );
      for (const collection of collections) upsert.run(collection.name, fetchedAt.toISOString(), collection.body);
    });
    return Promise.resolve();
  }

  listCollections(): Promise<CollectionRecord[]> {
    const rows = this.#read("SELECT name, fetched_at, body FROM collections ORDER BY name").all() as Row[];
    return Promise.resolve(rows.map((row) => ({ name: row.name as string, fetchedAt: row.fetched_at as string, body: JSON.parse(row.body as string) as unknown })));
  }

  /**
   * The checkpoint a cycle's commit leaves out (see `SqliteCycleTransaction.commit`), once the
   * cycle has reported: the same PASSIVE checkpoint SQLite's auto-checkpoint runs, moved off the
   * cycle's time. A failure is left to the next commit's auto-checkpoint.
   */
  #checkpointSoon(): void {
    this.#checkpoint ??= setImmediate(() => {
      this.#checkpoint = undefined;
      if (this.#closed || this.#cycleOpen) return;
      try {
        this.#db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch {
        // Busy or failing: the WAL is checkpointed by a later commit.
      }
    });
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearImmediate(this.#checkpoint);
      if (this.#reader !== this.#db) this.#reader.close();
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
