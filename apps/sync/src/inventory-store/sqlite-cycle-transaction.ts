import { StoreError } from "../common/errors.ts";
import type { SqliteConnection } from "../database/sqlite-driver.ts";
import { completeCycle, openCycle, writeCycleBatch, type CycleCursor } from "./cycle-records.ts";
import type { CommitOutcome, CycleBatch, CycleTransaction, RunInput } from "./store.ts";

/** SQLite's default auto-checkpoint threshold, in WAL pages, restored after a cycle's commit. */
export const WAL_AUTOCHECKPOINT_PAGES = 1000;

/**
 * A cycle's transaction on the SQLite writer connection: what it writes is cycle-records.ts'
 * programs, run at once; this class holds only SQLite's transaction: `BEGIN IMMEDIATE` at open
 * (the one writer's lock: the counter cannot move under it), the commit with the WAL checkpoint
 * moved after it. Readers use another connection, so under WAL they keep seeing the last
 * committed state until the commit.
 */
export class SqliteCycleTransaction implements CycleTransaction {
  readonly #connection: SqliteConnection;
  readonly #onEnd: (committed: boolean) => void;
  #cycle: CycleCursor;
  #open = true;

  private constructor(connection: SqliteConnection, at: Date, onEnd: (committed: boolean) => void) {
    this.#connection = connection;
    this.#onEnd = onEnd;
    connection.db.exec("BEGIN IMMEDIATE");
    try {
      this.#cycle = connection.run(openCycle(at));
    } catch (error) {
      connection.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Opens the transaction. `onEnd` learns when it is over, and whether it committed (then the WAL wants a checkpoint). */
  static begin(connection: SqliteConnection, at: Date, onEnd: (committed: boolean) => void): SqliteCycleTransaction {
    try {
      return new SqliteCycleTransaction(connection, at, onEnd);
    } catch (error) {
      onEnd(false);
      throw error;
    }
  }

  write(batch: CycleBatch): Promise<void> {
    this.#assertOpen();
    this.#cycle = this.#connection.run(writeCycleBatch(this.#cycle, batch));
    return Promise.resolve();
  }

  commit(run: RunInput): Promise<CommitOutcome> {
    try {
      this.#assertOpen();
      const outcome = this.#connection.run(completeCycle(this.#cycle, run));
      // By now the WAL holds the whole cycle (thousands of pages after a first sync): SQLite's
      // auto-checkpoint would copy them into the database and fsync inside this COMMIT, adding
      // ~175 ms to a 10,000-survey first sync. The store checkpoints right after instead (`onEnd`).
      this.#connection.db.exec("PRAGMA wal_autocheckpoint = 0");
      try {
        this.#connection.db.exec("COMMIT");
      } finally {
        this.#connection.db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      }
      this.#end(true);
      return Promise.resolve(outcome);
    } catch (error) {
      this.#abandon();
      throw error;
    }
  }

  rollback(): Promise<void> {
    this.#abandon();
    return Promise.resolve();
  }

  #abandon(): void {
    if (!this.#open) return;
    try {
      this.#connection.db.exec("ROLLBACK");
    } catch {
      // SQLite already rolled back (some errors end the transaction themselves).
    }
    this.#end(false);
  }

  #end(committed: boolean): void {
    this.#open = false;
    this.#onEnd(committed);
  }

  #assertOpen(): void {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
  }
}
