import type { DatabaseConfig } from "../../database/database-config.ts";
import type { RecordingSettings } from "./loop-records.ts";
import type { LoopStore } from "./loop-store.ts";

/**
 * Opens the loop store beside the sync store `DATABASE_URL` names: the same PostgreSQL schema,
 * or the SQLite file `<name>.loop.db` next to the sync store's file, recording with `settings`
 * (the configured yield cut-off). Imported only when used, like the sync store.
 */
export async function openLoopStore(database: DatabaseConfig, settings: RecordingSettings): Promise<LoopStore> {
  if (database.kind === "sqlite") {
    const { openSqliteLoopStore } = await import("./sqlite-loop-store.ts");
    return openSqliteLoopStore(database.path, settings);
  }
  const { openPostgresLoopStore } = await import("./postgres-loop-store.ts");
  return openPostgresLoopStore({ connectionString: database.connectionString, schema: database.schema }, settings);
}
