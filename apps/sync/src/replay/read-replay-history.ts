import { existsSync } from "node:fs";
import { StoreError } from "../common/errors.ts";
import { onDatabase, type DatabaseConfig } from "../database/database-config.ts";
import { loopDatabasePath } from "../loop/store/sqlite-loop-store.ts";
import { buildHistory, readLoopHistory, readSurveyIncidence, type ReplayHistory } from "./replay-history.ts";

/**
 * Reads the history a replay runs over from the store `DATABASE_URL` names, without writing or
 * migrating anything: on SQLite the sync file (surveys) and the loop file beside it (entries,
 * stats), opened read-only; on PostgreSQL the schema's tables, in one read-only transaction.
 *
 * @throws StoreError when a file is missing or a table cannot be read (a store sds-sync never ran on).
 */
export async function readReplayHistory(database: DatabaseConfig): Promise<ReplayHistory> {
  return onDatabase(database, {
    sqlite: ({ path }) => readSqlite(path),
    postgres: ({ connectionString, schema }) => readPostgres(connectionString, schema),
  });
}

async function readSqlite(path: string): Promise<ReplayHistory> {
  const loopPath = loopDatabasePath(path);
  if (path === ":memory:")
    throw new StoreError(
      "sqlite::memory: holds nothing to replay: point DATABASE_URL at the store a running sds-sync wrote",
    );
  for (const file of [path, loopPath]) {
    if (!existsSync(file))
      throw new StoreError(`no store at ${file}: replay reads the store a running sds-sync wrote (DATABASE_URL)`);
  }
  const { DatabaseSync } = await import("node:sqlite");
  const { SqliteConnection } = await import("../database/sqlite-driver.ts");
  const inventory = new DatabaseSync(path, { readOnly: true });
  const loop = new DatabaseSync(loopPath, { readOnly: true });
  try {
    return buildHistory(
      new SqliteConnection(loop).run(readLoopHistory()),
      new SqliteConnection(inventory).run(readSurveyIncidence()),
    );
  } catch (error) {
    throw new StoreError(`cannot read the history from ${path} and ${loopPath}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    inventory.close();
    loop.close();
  }
}

async function readPostgres(connectionString: string, schema: string): Promise<ReplayHistory> {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))
    throw new StoreError(`invalid schema name ${JSON.stringify(schema)}`);
  const { default: pg } = await import("pg");
  const { runOnPostgres } = await import("../database/postgres-driver.ts");
  const client = new pg.Client({
    connectionString,
    options: `-c search_path="${schema}"`,
    application_name: "sds-sync replay",
  });
  try {
    await client.connect();
    await client.query("BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const loop = await runOnPostgres(client, readLoopHistory());
    const incidence = await runOnPostgres(client, readSurveyIncidence());
    await client.query("COMMIT");
    return buildHistory(loop, incidence);
  } catch (error) {
    throw new StoreError(`cannot read the history from PostgreSQL (schema ${schema}): ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}
