import type { DatabaseSync } from "node:sqlite";
import { inSqliteTransaction } from "./sqlite-migrate.ts";

interface PendingWrite {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Settled = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * The most writes one transaction takes: a burst of large writes (history imports of 1,000
 * entries each) is committed over several turns of the event loop, so requests in between are
 * still served.
 */
export const MAX_GROUP_WRITES = 64;

/**
 * Group commit for a SQLite file written with `synchronous = FULL`: the writes asked for within
 * one turn of the event loop run together in one transaction, each in a savepoint of its own, and
 * pay for one fsync instead of one each. Every write still resolves only after the commit that
 * made it durable, and one that throws is rolled back alone (its savepoint) while the others
 * commit. Writes run in the order asked, each seeing the ones before, as if one after another.
 */
export class SqliteGroupCommit {
  readonly #db: DatabaseSync;
  #pending: PendingWrite[] = [];

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Runs `work` in the next group's transaction; resolves with what it returned once that transaction committed. */
  write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#pending.length === 1)
        setImmediate(() => {
          this.#commitNext();
        });
    });
  }

  /** Commits what is waiting now, {@link MAX_GROUP_WRITES} at a time (the store calls it before it closes, so no asked-for write is lost). */
  flush(): void {
    while (this.#pending.length > 0) this.#commitGroup();
  }

  /** Commits the oldest writes waiting, at most {@link MAX_GROUP_WRITES}; the rest wait for the next turn. */
  #commitNext(): void {
    this.#commitGroup();
    if (this.#pending.length > 0)
      setImmediate(() => {
        this.#commitNext();
      });
  }

  #commitGroup(): void {
    const group = this.#pending.splice(0, MAX_GROUP_WRITES);
    if (group.length === 0) return;
    let settled: Settled[];
    try {
      settled = inSqliteTransaction(this.#db, () => group.map((write) => this.#inSavepoint(write.work)));
    } catch (error) {
      // BEGIN or COMMIT failed: nothing of the group is durable.
      for (const write of group) write.reject(error);
      return;
    }
    group.forEach((write, index) => {
      const outcome = settled[index];
      if (outcome?.ok) write.resolve(outcome.value);
      else write.reject(outcome?.error);
    });
  }

  #inSavepoint(work: () => unknown): Settled {
    this.#db.exec("SAVEPOINT grouped_write");
    try {
      const value = work();
      this.#db.exec("RELEASE grouped_write");
      return { ok: true, value };
    } catch (error) {
      this.#db.exec("ROLLBACK TO grouped_write");
      this.#db.exec("RELEASE grouped_write");
      return { ok: false, error };
    }
  }
}
