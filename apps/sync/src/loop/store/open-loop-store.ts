import { onDatabase, type DatabaseConfig } from "../../database/database-config.ts";
import type { OutcomeStore } from "./loop-store.ts";

/**
 * Opens the outcome store beside the sync store `DATABASE_URL` names: the same PostgreSQL
 * schema, or the SQLite file `<name>.loop.db` next to the sync store's file. Imported only when
 * used, like the sync store.
 */
export async function openOutcomeStore(database: DatabaseConfig): Promise<OutcomeStore> {
  return onDatabase(database, {
    sqlite: async ({ path }) => (await import("./sqlite-loop-store.ts")).openSqliteOutcomeStore(path),
    postgres: async ({ connectionString, schema }) =>
      (await import("./postgres-loop-store.ts")).openPostgresOutcomeStore({ connectionString, schema }),
  });
}
