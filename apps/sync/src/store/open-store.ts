import type { DatabaseConfig } from "../database/database-config.ts";
import type { SyncStore } from "./store.ts";
import { withStoreErrors } from "../database/store-errors.ts";

/**
 * Opens the store `DATABASE_URL` names, applying pending migrations. Each store is imported only
 * when used: a PostgreSQL deployment never loads node:sqlite, nor SQLite the pg driver. Every
 * driver error it throws afterwards arrives as a StoreError (see store-errors.ts).
 *
 * @example
 * ```ts
 * const store = await openStore({ kind: "sqlite", path: "./data/sds.db" });
 * ```
 */
export async function openStore(database: DatabaseConfig): Promise<SyncStore> {
  if (database.kind === "sqlite") {
    const { openSqliteStore } = await import("./sqlite-store.ts");
    return withStoreErrors(await openSqliteStore({ path: database.path }));
  }
  const { openPostgresStore } = await import("./postgres-store.ts");
  return withStoreErrors(await openPostgresStore({ connectionString: database.connectionString, schema: database.schema }));
}
