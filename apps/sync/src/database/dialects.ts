import { postgresDialect } from "./postgres-dialect.ts";
import type { DialectName, SqlDialect } from "./sql-dialect.ts";
import { sqliteDialect } from "./sqlite-dialect.ts";

/**
 * The dialect object of each dialect, by name: how a migration written for both (its `sqlite`
 * and `postgres` texts) reads the type names and expressions of each.
 *
 * @example
 * ```ts
 * const t = dialects[dialect].types; // `${t.time}`: TEXT on SQLite, timestamptz on PostgreSQL
 * ```
 */
export const dialects: Readonly<Record<DialectName, SqlDialect>> = { sqlite: sqliteDialect, postgres: postgresDialect };
