import type pg from "pg";
import { openMigratedPool, type PostgresSchemaOptions } from "../../database/postgres-migrate.ts";
import { inPostgresTransaction } from "../../database/postgres-transaction.ts";
import { withStoreErrors } from "../../database/store-errors.ts";
import { prunePostgresFeedPrefix } from "../../store/postgres-retention.ts";
import type { PruneBatchOutcome } from "../../store/retention.ts";
import { outcomeLedger } from "./loop-migrations.ts";
import { postgresPlaceholders, preparedStatementName } from "../../database/postgres-query.ts";
import { runProgram, type Program, type SqlRow, type SqlStep } from "./loop-program.ts";
import type { LoopStore, OutcomePruneTarget } from "./loop-store.ts";
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

/** The outcome feed's horizon in one statement (one snapshot): below its oldest kept row, else the counter. */
const POSTGRES_OUTCOME_HORIZON =
  "SELECT COALESCE((SELECT min(sequence) FROM loop_outcomes) - 1, (SELECT value FROM loop_counters WHERE name = 'outcomes'))::text AS horizon";
/** The oldest entries issued before the horizon that got no outcome after it (`loop_entries_issued`). */
const POSTGRES_PRUNE_ENTRIES =
  "DELETE FROM loop_entries WHERE token IN (SELECT token FROM loop_entries WHERE issued_at < $1 AND (outcome_at IS NULL OR outcome_at < $1) ORDER BY issued_at LIMIT $2)";

/** Runs one step of a program, as a prepared statement of the connection (parsed and planned once per connection). */
const execute = (client: pg.ClientBase | pg.Pool) => async (step: SqlStep) => {
  const text = postgresPlaceholders(step.sql);
  return (await client.query<SqlRow>({ name: preparedStatementName(text), text, values: [...step.params] })).rows;
};

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
    return runProgram(program, execute(this.#pool));
  }

  protected runWrite<T>(what: string, program: Program<T>): Promise<T> {
    return inPostgresTransaction(this.#pool, what, (client) => runProgram(program, execute(client)));
  }

  override pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // One short transaction; readers are never blocked (MVCC), and recorders write young rows only.
    return inPostgresTransaction(this.#pool, `pruning ${target}`, async (client) => {
      switch (target) {
        case "outcomes":
          return prunePostgresFeedPrefix(client, { table: "loop_outcomes", timeColumn: "received_at" }, before, limit);
        case "entries": {
          const deleted = (await client.query(POSTGRES_PRUNE_ENTRIES, [before, limit])).rowCount ?? 0;
          return { deleted, more: deleted === limit, deferred: false };
        }
      }
    });
  }

  override async feedHorizon(): Promise<number> {
    const result = await this.#pool.query<{ horizon: string }>(POSTGRES_OUTCOME_HORIZON);
    return Number(result.rows[0]?.horizon ?? 0);
  }

  override async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
