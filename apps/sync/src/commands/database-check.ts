import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import pg from "pg";
import { onDatabase, type DatabaseConfig, type PostgresDatabaseConfig } from "../database/database-config.ts";
import type { MigrationLedger } from "../database/migration-ledger.ts";

/** What `sds-sync check-config` found of the database, read without changing anything. */
export interface DatabaseCheck {
  /** One line for the operator, such as `reachable; schema at migration 12 of 12`. */
  readonly summary: string;
}

/** The database could not be reached or refused the connection (exit 75). */
export class DatabaseCheckFailed extends Error {
  override name = "DatabaseCheckFailed" as const;
}

/** How long the check waits for a PostgreSQL connection. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects to the database `DATABASE_URL` names and reads how far `ledger` migrated it, without
 * creating or migrating anything: PostgreSQL through one connection, SQLite read-only (or, when
 * the file does not exist yet, whether its directory can be created or written).
 *
 * @throws DatabaseCheckFailed when the database cannot be reached or opened.
 */
export async function checkDatabase(database: DatabaseConfig, ledger: MigrationLedger): Promise<DatabaseCheck> {
  const known = ledger.migrations.at(-1)?.version ?? 0;
  const progress = (applied: number | undefined) =>
    applied === undefined
      ? `no tables yet (sds-sync migrate, or the first start, creates them: ${known} migrations)`
      : applied === known
        ? `schema at migration ${applied} of ${known}, up to date`
        : applied > known
          ? `schema at migration ${applied}, newer than this build knows (${known}): this build would refuse it`
          : `schema at migration ${applied} of ${known} (sds-sync migrate applies the rest)`;
  return onDatabase<Promise<DatabaseCheck>>(database, {
    sqlite: async ({ path }) => ({ summary: progress(await sqliteVersion(path, ledger)) }),
    postgres: (postgres) => checkPostgres(postgres, ledger, progress),
  });
}

/** How far `ledger` migrated a PostgreSQL schema, read through one connection of its own. */
async function checkPostgres(
  database: PostgresDatabaseConfig,
  ledger: MigrationLedger,
  progress: (applied: number | undefined) => string,
): Promise<DatabaseCheck> {
  const client = new pg.Client({
    connectionString: database.connectionString,
    application_name: "sds-sync check-config",
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const table = await client.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [
      `"${database.schema}".${ledger.table}`,
    ]);
    let applied: number | undefined;
    if (table.rows[0]?.present === true) {
      const rows = await client.query<{ version: number }>(
        `SELECT COALESCE(MAX(version), 0)::int AS version FROM "${database.schema}".${ledger.table}`,
      );
      applied = rows.rows[0]?.version;
    }
    return { summary: `reachable (schema ${database.schema}); ${progress(applied)}` };
  } catch (error) {
    throw new DatabaseCheckFailed(error instanceof Error ? error.message : String(error), { cause: error });
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function sqliteVersion(path: string, ledger: MigrationLedger): Promise<number | undefined> {
  if (path === ":memory:") return undefined;
  if (!existsSync(path)) {
    let directory = dirname(resolve(path));
    while (!existsSync(directory) && dirname(directory) !== directory) directory = dirname(directory);
    try {
      accessSync(directory, constants.W_OK);
    } catch {
      throw new DatabaseCheckFailed(`${path} does not exist and ${directory} is not writable, so it cannot be created`);
    }
    return undefined;
  }
  return readSqliteVersion(path, ledger);
}

async function readSqliteVersion(path: string, ledger: MigrationLedger): Promise<number | undefined> {
  // Loaded here only: node:sqlite is not needed by a PostgreSQL deployment.
  const { DatabaseSync } = await import("node:sqlite");
  let db: InstanceType<typeof DatabaseSync> | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(ledger.table);
    if (table === undefined) return undefined;
    const row = db.prepare(`SELECT COALESCE(MAX(version), 0) AS version FROM ${ledger.table}`).get() as {
      version: number;
    };
    return row.version;
  } catch (error) {
    throw new DatabaseCheckFailed(`${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  } finally {
    db?.close();
  }
}
