import type pg from "pg";
import { runOnPostgres, runPostgresTransaction } from "../../database/postgres-driver.ts";
import { openMigratedPool, type PostgresSchemaOptions } from "../../database/postgres-migrate.ts";
import type { Program } from "../../database/program.ts";
import { withStoreErrors } from "../../database/store-errors.ts";
import { outcomeLedger } from "./loop-migrations.ts";
import type { LoopStore } from "./loop-store.ts";
import { defaultRecordingSettings, type RecordingSettings } from "./loop-records.ts";
import { ProgramLoopStore } from "./program-loop-store.ts";

/**
 * Opens the PostgreSQL loop store in the sync store's schema, applying its migrations under an
 * advisory transaction lock so replicas starting together migrate once. Every replica writes
 * it: the receiver runs on each. `poolSize` is 8 unless given. Every failure afterwards arrives
 * as a StoreError (the one wrapping, database/store-errors.ts).
 */
export async function openPostgresLoopStore(
  options: PostgresSchemaOptions,
  settings: RecordingSettings = defaultRecordingSettings,
): Promise<LoopStore> {
  const { pool } = await openMigratedPool(options, 8, outcomeLedger, "the PostgreSQL outcome store");
  return withStoreErrors<LoopStore>(new PostgresLoopStore(pool, settings));
}

/** The loop store on node-postgres: reads on the pool, writes in one transaction on one connection. */
class PostgresLoopStore extends ProgramLoopStore {
  readonly kind = "postgres" as const;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(pool: pg.Pool, settings: RecordingSettings) {
    super(settings);
    this.#pool = pool;
  }

  protected runRead<T>(program: Program<T>): Promise<T> {
    return runOnPostgres(this.#pool, program);
  }

  protected runWrite<T>(_what: string, program: Program<T>): Promise<T> {
    return runPostgresTransaction(this.#pool, program);
  }

  override async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
