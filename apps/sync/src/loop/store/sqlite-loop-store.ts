import { mkdirSync } from "node:fs";
import { dirname, extname } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { StoreError } from "../../common/errors.ts";
import { SqliteGroupCommit } from "../../database/sqlite-group-commit.ts";
import { inSqliteTransaction, migrateSqlite } from "../../database/sqlite-migrate.ts";
import { withStoreErrors } from "../../database/store-errors.ts";
import type { PruneBatchOutcome } from "../../store/retention.ts";
import { pruneSqliteFeedPrefix } from "../../store/sqlite-retention.ts";
import { outcomeLedger } from "./loop-migrations.ts";
import { runProgramSync, type Program, type SqlRow, type SqlStep } from "./loop-program.ts";
import type { LoopStore, OutcomePruneTarget } from "./loop-store.ts";
import { defaultRecordingSettings, type RecordingSettings } from "./loop-records.ts";
import { ProgramLoopStore } from "./program-loop-store.ts";

/** The outcome feed's horizon in one statement (one snapshot): below its oldest kept row, else the counter. */
const SQLITE_OUTCOME_HORIZON =
  "SELECT COALESCE((SELECT MIN(sequence) FROM loop_outcomes) - 1, (SELECT value FROM loop_counters WHERE name = 'outcomes')) AS horizon";
/** The oldest entries issued before the horizon that got no outcome after it (`loop_entries_issued`). */
const SQLITE_PRUNE_ENTRIES =
  "DELETE FROM loop_entries WHERE token IN (SELECT token FROM loop_entries WHERE issued_at < ? AND (outcome_at IS NULL OR outcome_at < ?) ORDER BY issued_at LIMIT ?)";

/**
 * The file holding the loop's tables beside the sync store's: `sds.db` → `sds.loop.db`.
 * A file of its own because `node:sqlite` is synchronous and a cycle holds the sync file's write
 * lock from its first batch to its commit: an outcome written there would have to wait for the
 * cycle while blocking the event loop the cycle runs on.
 */
export function loopDatabasePath(path: string): string {
  if (path === ":memory:") return path;
  const extension = extname(path);
  return `${path.slice(0, path.length - extension.length)}.loop${extension || ".db"}`;
}

/**
 * Opens (creating and migrating) the SQLite loop store at {@link loopDatabasePath} of the sync
 * store's path. One process per file, like the sync store. Every failure afterwards arrives as a
 * StoreError (the one wrapping, database/store-errors.ts).
 */
export function openSqliteLoopStore(
  syncStorePath: string,
  settings: RecordingSettings = defaultRecordingSettings,
): Promise<LoopStore> {
  const path = loopDatabasePath(syncStorePath);
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    migrateSqlite(db, outcomeLedger);
    return Promise.resolve(withStoreErrors<LoopStore>(new SqliteLoopStore(db, settings)));
  } catch (error) {
    return Promise.reject(
      new StoreError(`cannot open the SQLite outcome store at ${path}: ${(error as Error).message}`, { cause: error }),
    );
  }
}

/** Synchronous work as a promise: a throw becomes a rejection (classified by the one wrapping, withStoreErrors). */
function promised<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * The loop store on `node:sqlite`. Reads run their program at once; writes asked for in one turn
 * of the event loop run together, synchronously, in one BEGIN IMMEDIATE transaction (a savepoint
 * each) and one fsync (group commit: SqliteGroupCommit), so nothing else runs while the write
 * lock is held and every write is durable when it resolves. Every failure is a rejection, never
 * a synchronous throw.
 */
class SqliteLoopStore extends ProgramLoopStore {
  readonly kind = "sqlite" as const;
  readonly #db: DatabaseSync;
  readonly #writes: SqliteGroupCommit;
  readonly #statements = new Map<string, StatementSync>();
  #closed = false;

  constructor(db: DatabaseSync, settings: RecordingSettings) {
    super(settings);
    this.#db = db;
    this.#writes = new SqliteGroupCommit(db);
  }

  #prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #run<T>(program: Program<T>): T {
    return runProgramSync(
      program,
      (step: SqlStep) => this.#prepare(step.sql).all(...(step.params as SQLInputValue[])) as SqlRow[],
    );
  }

  protected runRead<T>(program: Program<T>): Promise<T> {
    return promised(() => this.#run(program));
  }

  protected runWrite<T>(_what: string, program: Program<T>): Promise<T> {
    if (this.#closed) return promised(() => this.#run(program));
    return this.#writes.write(() => this.#run(program));
  }

  override pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // One short write transaction; WAL readers go on reading meanwhile.
    return promised(() => inSqliteTransaction(this.#db, () => this.#pruneTarget(target, before, limit)));
  }

  #pruneTarget(target: OutcomePruneTarget, before: Date, limit: number): PruneBatchOutcome {
    switch (target) {
      case "outcomes":
        return pruneSqliteFeedPrefix(
          (sql) => this.#prepare(sql),
          { table: "loop_outcomes", timeColumn: "received_at" },
          before,
          limit,
        );
      case "entries": {
        const at = before.toISOString();
        const deleted = Number(this.#prepare(SQLITE_PRUNE_ENTRIES).run(at, at, limit).changes);
        return { deleted, more: deleted === limit, deferred: false };
      }
    }
  }

  override feedHorizon(): Promise<number> {
    return promised(() => Number((this.#prepare(SQLITE_OUTCOME_HORIZON).get() as SqlRow).horizon));
  }

  override close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#writes.flush();
      this.#db.close();
    }
    return Promise.resolve();
  }
}
