import type pg from "pg";
import { runOnPostgres, runPostgresTransaction } from "../database/postgres-driver.ts";
import { openMigratedPool, type PostgresSchemaOptions } from "../database/postgres-migrate.ts";
import type { Program } from "../database/program.ts";
import { withStoreErrors } from "../database/store-errors.ts";
import { syncLedger } from "./migrations.ts";
import { PostgresCycleTransaction } from "./postgres-cycle-transaction.ts";
import { PostgresLeadership } from "./postgres-leadership.ts";
import { ProgramInventoryStore } from "./program-inventory-store.ts";
import type { CycleTransaction, SyncStore } from "./store.ts";

/**
 * Opens the PostgreSQL store, creating the schema and applying pending migrations under an
 * advisory transaction lock, so replicas starting together migrate once. `poolSize` is the
 * connections for reads and commits (leadership uses one more), 5 unless given.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ connectionString: "postgres://postgres@127.0.0.1/test", schema: "sds" });
 * ```
 */
export async function openPostgresStore(options: PostgresSchemaOptions): Promise<SyncStore> {
  const { pool, schema } = await openMigratedPool(options, 5, syncLedger, "PostgreSQL store");
  return withStoreErrors(new PostgresStore(pool, new PostgresLeadership(options.connectionString, schema)));
}

/** The inventory store on node-postgres: reads on the pool, writes in one transaction on one connection. */
class PostgresStore extends ProgramInventoryStore {
  readonly kind = "postgres" as const;
  readonly leadership: PostgresLeadership;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(pool: pg.Pool, leadership: PostgresLeadership) {
    super();
    this.#pool = pool;
    this.leadership = leadership;
  }

  protected runRead<T>(program: Program<T>): Promise<T> {
    return runOnPostgres(this.#pool, program);
  }

  protected runWrite<T>(program: Program<T>): Promise<T> {
    return runPostgresTransaction(this.#pool, program);
  }

  async beginCycle(at: Date): Promise<CycleTransaction> {
    return withStoreErrors(await PostgresCycleTransaction.begin(this.#pool, this.leadership, at), () => "cycle commit");
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.leadership.release();
    await this.#pool.end();
  }
}
