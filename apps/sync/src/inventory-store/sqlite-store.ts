import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { StoreError } from "../common/errors.ts";
import type { Program } from "../database/program.ts";
import type { PruneBatchOutcome } from "../database/retention.ts";
import { promised, SqliteConnection } from "../database/sqlite-driver.ts";
import { inSqliteTransaction, migrateSqlite } from "../database/sqlite-migrate.ts";
import { withStoreErrors } from "../database/store-errors.ts";
import type { PruneTarget } from "./inventory-retention.ts";
import { syncLedger } from "./migrations.ts";
import { ProgramInventoryStore } from "./program-inventory-store.ts";
import { SqliteCycleTransaction } from "./sqlite-cycle-transaction.ts";
import type { CycleTransaction, Leadership, SyncStore } from "./store.ts";

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

/**
 * The inventory store on `node:sqlite`: reads on the reader connection (WAL snapshots: an open
 * cycle stays invisible to them), writes on the writer connection, each program run whole and
 * synchronously.
 */
class SqliteStore extends ProgramInventoryStore {
  readonly kind = "sqlite" as const;
  readonly leadership = soleLeader;
  readonly #writer: SqliteConnection;
  readonly #reader: SqliteConnection;
  #closed = false;
  #cycleOpen = false;
  #checkpoint: NodeJS.Immediate | undefined;

  constructor(db: DatabaseSync, reader: DatabaseSync) {
    super();
    this.#writer = new SqliteConnection(db);
    this.#reader = reader === db ? this.#writer : new SqliteConnection(reader);
  }

  protected runRead<T>(program: Program<T>): Promise<T> {
    return promised(() => this.#reader.run(program));
  }

  protected runWrite<T>(program: Program<T>): Promise<T> {
    return promised(() => inSqliteTransaction(this.#writer.db, () => this.#writer.run(program)));
  }

  beginCycle(at: Date): Promise<CycleTransaction> {
    if (this.#cycleOpen) return Promise.reject(new StoreError("a cycle transaction is already open"));
    this.#cycleOpen = true;
    try {
      const transaction = SqliteCycleTransaction.begin(this.#writer, at, (committed) => {
        this.#cycleOpen = false;
        if (committed) this.#checkpointSoon();
      });
      return Promise.resolve(withStoreErrors(transaction, () => "cycle commit"));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  override pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // The writer connection is the cycle's while its transaction is open: a batch now would join it.
    if (this.#cycleOpen) return Promise.resolve({ deleted: 0, more: true, deferred: true });
    return super.pruneBatch(target, before, limit);
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
        this.#writer.db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch {
        // Busy or failing: the WAL is checkpointed by a later commit.
      }
    });
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearImmediate(this.#checkpoint);
      if (this.#reader !== this.#writer) this.#reader.db.close();
      this.#writer.db.close();
    }
    return Promise.resolve();
  }
}
