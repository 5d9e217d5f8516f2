import type { DatabaseConfig } from "../config.ts";
import { openPostgresStore } from "./postgres-store.ts";
import { openSqliteStore } from "./sqlite-store.ts";
import type { SyncStore } from "./store.ts";

/**
 * Opens the store `DATABASE_URL` names, applying pending migrations.
 *
 * @example
 * ```ts
 * const store = await openStore({ kind: "sqlite", path: "./data/sds.db" });
 * ```
 */
export function openStore(database: DatabaseConfig): Promise<SyncStore> {
  return database.kind === "sqlite"
    ? openSqliteStore({ path: database.path })
    : openPostgresStore({ connectionString: database.connectionString, schema: database.schema });
}
