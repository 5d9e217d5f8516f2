import { onDatabase, type DatabaseConfig } from "../database/database-config.ts";
import type { SyncStore } from "./store.ts";

/**
 * Opens the store `DATABASE_URL` names, applying pending migrations. Each store is imported only
 * when used: a PostgreSQL deployment never loads node:sqlite, nor SQLite the pg driver. Every
 * driver error a store throws afterwards arrives as a StoreError (each open function wraps its
 * store, see store-errors.ts).
 *
 * @example
 * ```ts
 * const store = await openStore({ kind: "sqlite", path: "./data/sds.db" });
 * ```
 */
export async function openStore(database: DatabaseConfig): Promise<SyncStore> {
  return onDatabase(database, {
    sqlite: async ({ path }) => (await import("./sqlite-store.ts")).openSqliteStore({ path }),
    postgres: async ({ connectionString, schema }) =>
      (await import("./postgres-store.ts")).openPostgresStore({ connectionString, schema }),
  });
}
