import type pg from "pg";
import { StoreError } from "../common/errors.ts";
import { runOnPostgres } from "../database/postgres-driver.ts";
import { first, type Program } from "../database/program.ts";
import { statement } from "../database/statement.ts";
import { completeCycle, openCycle, writeCycleBatch, type CycleCursor } from "./cycle-records.ts";
import type { PostgresLeadership } from "./postgres-leadership.ts";
import type { CommitOutcome, CycleBatch, CycleTransaction, RunInput } from "./store.ts";

/** Whether the backend `pid` holds the leadership lock (the fencing check). */
const HOLDS_LEADERSHIP = statement<[classId: number, objectId: number, pid: number], true>(
  "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ? AND objid = ? AND objsubid = 2 AND pid = ? AND granted",
  () => true,
);

/**
 * A cycle's transaction on a dedicated pooled connection: what it writes is cycle-records.ts'
 * programs (rows in bulk, `unnest` arrays), run on that connection; this class holds only
 * PostgreSQL's transaction: BEGIN on a connection kept for the cycle (MVCC keeps the writes
 * invisible to readers until the commit), and leadership checked at open and again just before
 * the commit (fencing a leader that lost its lock). The counter row is locked at open
 * (`openCycle`), so sequence numbers are allocated without gaps.
 */
export class PostgresCycleTransaction implements CycleTransaction {
  readonly #client: pg.PoolClient;
  readonly #leadership: PostgresLeadership;
  #cycle: CycleCursor;
  #open = true;

  private constructor(client: pg.PoolClient, leadership: PostgresLeadership, cycle: CycleCursor) {
    this.#client = client;
    this.#leadership = leadership;
    this.#cycle = cycle;
  }

  /** Opens the transaction on a connection of `pool`. */
  static async begin(pool: pg.Pool, leadership: PostgresLeadership, at: Date): Promise<PostgresCycleTransaction> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await assertLeader(client, leadership);
      return new PostgresCycleTransaction(client, leadership, await runOnPostgres(client, openCycle(at)));
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw error;
    }
  }

  /** Runs one program of this transaction on its connection. */
  #run<T>(program: Program<T>): Promise<T> {
    return runOnPostgres(this.#client, program);
  }

  async write(batch: CycleBatch): Promise<void> {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
    this.#cycle = await this.#run(writeCycleBatch(this.#cycle, batch));
  }

  async commit(run: RunInput): Promise<CommitOutcome> {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
    try {
      await assertLeader(this.#client, this.#leadership);
      const outcome = await this.#run(completeCycle(this.#cycle, run));
      await this.#client.query("COMMIT");
      this.#end();
      return outcome;
    } catch (error) {
      await this.rollback();
      throw error;
    }
  }

  async rollback(): Promise<void> {
    if (!this.#open) return;
    await this.#client.query("ROLLBACK").catch(() => undefined);
    this.#end();
  }

  #end(): void {
    this.#open = false;
    this.#client.release();
  }
}

/** Fencing: a replica that lost its lock (say, its lock connection died mid-cycle) must not write. */
async function assertLeader(client: pg.PoolClient, leadership: PostgresLeadership): Promise<void> {
  const pid = leadership.leaderPid;
  if (pid === undefined) throw new StoreError("this replica does not hold leadership");
  const { classId, objectId } = leadership.key;
  const held = await runOnPostgres(client, first(HOLDS_LEADERSHIP, classId, objectId, pid));
  if (held === undefined) throw new StoreError("leadership was lost before the commit");
}
