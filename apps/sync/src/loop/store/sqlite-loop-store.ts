import { mkdirSync } from "node:fs";
import { dirname, extname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { StoreError } from "../../common/errors.ts";
import type { Program } from "../../database/program.ts";
import { promised, SqliteConnection } from "../../database/sqlite-driver.ts";
import { SqliteGroupCommit } from "../../database/sqlite-group-commit.ts";
import { migrateSqlite } from "../../database/sqlite-migrate.ts";
import { withStoreErrors } from "../../database/store-errors.ts";
import { outcomeLedger } from "./loop-migrations.ts";
import type { LoopStore } from "./loop-store.ts";
import { defaultRecordingSettings, type RecordingSettings } from "./loop-records.ts";
import { ProgramLoopStore } from "./program-loop-store.ts";

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

/**
 * The loop store on `node:sqlite`. Reads run their program at once; writes asked for in one turn
 * of the event loop run together, synchronously, in one BEGIN IMMEDIATE transaction (a savepoint
 * each) and one fsync (group commit: SqliteGroupCommit), so nothing else runs while the write
 * lock is held and every write is durable when it resolves. Every failure is a rejection, never
 * a synchronous throw.
 */
class SqliteLoopStore extends ProgramLoopStore {
  readonly kind = "sqlite" as const;
  readonly #connection: SqliteConnection;
  readonly #writes: SqliteGroupCommit;
  #closed = false;

  constructor(db: DatabaseSync, settings: RecordingSettings) {
    super(settings);
    this.#connection = new SqliteConnection(db);
    this.#writes = new SqliteGroupCommit(db);
  }

  protected runRead<T>(program: Program<T>): Promise<T> {
    return promised(() => this.#connection.run(program));
  }

  protected runWrite<T>(_what: string, program: Program<T>): Promise<T> {
    if (this.#closed) return promised(() => this.#connection.run(program));
    return this.#writes.write(() => this.#connection.run(program));
  }

  override close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#writes.flush();
      this.#connection.db.close();
    }
    return Promise.resolve();
  }
}
