import pg from "pg";
import { StoreError } from "../common/errors.ts";
import { assertSchemaKnown, migrationStatements, type MigrationLedger } from "./migration-ledger.ts";
import { advisoryLockKey } from "./advisory-lock.ts";

/** Where a PostgreSQL store keeps its tables: the options of both PostgreSQL stores (sync and outcome). */
export interface PostgresSchemaOptions {
  readonly connectionString: string;
  /** Schema of the tables, created when missing; the outcome store shares the sync store's. @default "public" */
  readonly schema?: string;
  /** Connections of the store's pool. @default the store's own (see its open function) */
  readonly poolSize?: number;
}

/**
 * Opens a pool on the schema and applies `ledger`'s pending migrations, the first step of
 * opening either PostgreSQL store. When that fails the pool is ended and the error arrives as a
 * StoreError naming `storeName` and the schema.
 */
export async function openMigratedPool(
  options: PostgresSchemaOptions,
  defaultPoolSize: number,
  ledger: MigrationLedger,
  storeName: string,
): Promise<{ pool: pg.Pool; schema: string }> {
  const { pool, schema } = openSchemaPool(options, defaultPoolSize);
  try {
    await migratePostgres(pool, schema, ledger);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StoreError(`cannot open ${storeName} (schema ${schema}): ${(error as Error).message}`, { cause: error });
  }
  return { pool, schema };
}

/**
 * A pool whose connections use `schema` (validated: it is spliced into SQL) and survive the
 * server dropping an idle connection (the pool replaces it instead of crashing the process).
 */
function openSchemaPool(options: PostgresSchemaOptions, defaultPoolSize: number): { pool: pg.Pool; schema: string } {
  const schema = options.schema ?? "public";
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))
    throw new StoreError(`invalid schema name ${JSON.stringify(schema)}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? defaultPoolSize,
    options: `-c search_path="${schema}"`,
    application_name: "sds-sync",
  });
  pool.on("error", () => undefined);
  return { pool, schema };
}

/**
 * Creates the schema and applies every migration of `ledger` above the highest recorded
 * version, in one transaction under an advisory transaction lock, so replicas starting together
 * migrate once; refuses a schema newer than this build knows.
 */
async function migratePostgres(pool: pg.Pool, schema: string, ledger: MigrationLedger): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const key = advisoryLockKey(`${schema}:${ledger.lockName}`);
    await client.query("SELECT pg_advisory_xact_lock($1, $2)", [key.classId, key.objectId]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${ledger.table} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`,
    );
    const applied = await client.query<{ version: number }>(
      `SELECT COALESCE(MAX(version), 0)::int AS version FROM ${ledger.table}`,
    );
    const current = applied.rows[0]?.version ?? 0;
    assertSchemaKnown(current, ledger.migrations);
    for (const migration of ledger.migrations.filter((candidate) => candidate.version > current)) {
      for (const statement of migrationStatements(migration, "postgres")) await client.query(statement);
      await client.query(`INSERT INTO ${ledger.table} (version, name, applied_at) VALUES ($1, $2, now())`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
