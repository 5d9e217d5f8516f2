import { onDatabase, type DatabaseConfig } from "../../database/database-config.ts";
import type { RecordingSettings } from "./loop-records.ts";
import type { LoopStore } from "./loop-store.ts";

/**
 * Opens the loop store beside the sync store `DATABASE_URL` names: the same PostgreSQL schema,
 * or the SQLite file `<name>.loop.db` next to the sync store's file, recording with `settings`
 * (the configured yield cut-off). Imported only when used, like the sync store.
 */
export async function openLoopStore(database: DatabaseConfig, settings: RecordingSettings): Promise<LoopStore> {
  return onDatabase(database, {
    sqlite: async ({ path }) => (await import("./sqlite-loop-store.ts")).openSqliteLoopStore(path, settings),
    postgres: async ({ connectionString, schema }) =>
      (await import("./postgres-loop-store.ts")).openPostgresLoopStore({ connectionString, schema }, settings),
  });
}
