import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { StoreError } from "../common/errors.ts";
import { withStoreErrors } from "../database/store-errors.ts";
import type { Row } from "../database/row-values.ts";
import { syncLedger } from "./migrations.ts";
import { inSqliteTransaction as inTransaction, migrateSqlite } from "../database/sqlite-migrate.ts";
import { SqliteCycleTransaction } from "./sqlite-cycle-transaction.ts";
import { pruneSqliteBatch, type PruneTarget } from "./inventory-retention.ts";
import type { PruneBatchOutcome } from "../database/retention.ts";
import { inventorySql, runParams, surveyPageSql } from "./inventory-sql.ts";
import {
  toChangeRecord,
  toChildRecords,
  toCollectionRecord,
  toLanguageCount,
  toQuarantineRecord,
  toRunRecord,
  toStoreStats,
  toSurveyState,
  toSurveySummary,
} from "./inventory-rows.ts";
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
  SyncStore,
} from "./store.ts";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file; its directory is created when missing. `:memory:` for a throwaway store. */
  readonly path: string;
}

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
    return Promise.reject(
      new StoreError(`cannot open SQLite store at ${options.path}: ${(error as Error).message}`, { cause: error }),
    );
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

  /** Every row of a read. */
  #all(sql: string, ...params: unknown[]): Row[] {
    return this.#read(sql).all(...(params as SQLInputValue[]));
  }

  /** The first row of a read, if any. */
  #get(sql: string, ...params: unknown[]): Row | undefined {
    return this.#read(sql).get(...(params as SQLInputValue[]));
  }

  loadSurveyStates(): Promise<StoredSurveyState[]> {
    return Promise.resolve((this.#statement(inventorySql.surveyStates).all() as Row[]).map(toSurveyState));
  }

  beginCycle(at: Date): Promise<CycleTransaction> {
    if (this.#cycleOpen) return Promise.reject(new StoreError("a cycle transaction is already open"));
    this.#cycleOpen = true;
    const transaction = SqliteCycleTransaction.begin(
      this.#db,
      (sql) => this.#statement(sql),
      at,
      (committed) => {
        this.#cycleOpen = false;
        if (committed) this.#checkpointSoon();
      },
    );
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

  recordRun(run: RunInput): Promise<number> {
    const row = inTransaction(
      this.#db,
      () => this.#statement(inventorySql.insertRun).get(...runParams(run), null, null) as Row,
    );
    return Promise.resolve(Number(row.id));
  }

  listSurveys(query: SurveyQuery): Promise<SurveyPage> {
    const { sql, params } = surveyPageSql(query);
    // Not cached: the filters make many shapes of this statement.
    const rows = this.#reader.prepare(sql).all(...(params as SQLInputValue[])) as Row[];
    const hasMore = rows.length > query.limit;
    const surveys = rows.slice(0, query.limit).map(toSurveySummary);
    return Promise.resolve({ surveys, hasMore, lastId: hasMore ? (surveys.at(-1)?.id ?? null) : null });
  }

  getSurvey(id: number): Promise<SurveyDetail | undefined> {
    return Promise.resolve(this.#detail(id));
  }

  #detail(id: number): SurveyDetail | undefined {
    const row = this.#get(inventorySql.survey, id);
    if (!row) return undefined;
    return {
      ...toSurveySummary(row),
      qualifications: toChildRecords(this.#all(inventorySql.qualificationsOf, id)),
      quotas: toChildRecords(this.#all(inventorySql.quotasOf, id)),
    };
  }

  getSurveys(ids: readonly number[]): Promise<SurveyDetail[]> {
    // Point reads on the primary key, a few microseconds each in-process: no need for an id array.
    return Promise.resolve(ids.flatMap((id) => this.#detail(id) ?? []));
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
    return Promise.resolve(this.#all(inventorySql.refetchPendingIds).map((row) => Number(row.id)));
  }

  listChanges(after: number, limit: number): Promise<ChangeRecord[]> {
    return Promise.resolve(this.#all(inventorySql.changesAfter, after, limit).map(toChangeRecord));
  }

  latestSequence(): Promise<number> {
    return Promise.resolve(Number(this.#get(inventorySql.latestSequence)?.value ?? 0));
  }

  listRuns(limit: number): Promise<RunRecord[]> {
    return Promise.resolve(this.#all(inventorySql.recentRuns, limit).map(toRunRecord));
  }

  lastSuccessfulRun(): Promise<RunRecord | undefined> {
    const row = this.#get(inventorySql.lastSuccessfulRun);
    return Promise.resolve(row ? toRunRecord(row) : undefined);
  }

  stats(): Promise<StoreStats> {
    return Promise.resolve(toStoreStats(this.#get(inventorySql.stats) ?? {}));
  }

  listQuarantine(limit: number): Promise<QuarantineRecord[]> {
    return Promise.resolve(this.#all(inventorySql.unresolvedQuarantine, limit).map(toQuarantineRecord));
  }

  pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // The writer connection is the cycle's while its transaction is open: a batch now would join it.
    if (this.#cycleOpen) return Promise.resolve({ deleted: 0, more: true, deferred: true });
    return Promise.resolve(pruneSqliteBatch(this.#db, (sql) => this.#statement(sql), target, before, limit));
  }

  countByLanguage(): Promise<LanguageCount[]> {
    return Promise.resolve(this.#all(inventorySql.countByLanguage).map(toLanguageCount));
  }

  feedHorizon(): Promise<number> {
    return Promise.resolve(Number(this.#get(inventorySql.feedHorizon)?.horizon ?? 0));
  }

  saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Promise<void> {
    inTransaction(this.#db, () => {
      const upsert = this.#statement(inventorySql.upsertCollection);
      for (const collection of collections) upsert.run(collection.name, fetchedAt.toISOString(), collection.body);
    });
    return Promise.resolve();
  }

  listCollections(): Promise<CollectionRecord[]> {
    return Promise.resolve(this.#all(inventorySql.collections).map(toCollectionRecord));
  }

  getCollection(name: string): Promise<CollectionRecord | undefined> {
    const row = this.#get(inventorySql.collection, name);
    return Promise.resolve(row === undefined ? undefined : toCollectionRecord(row));
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
