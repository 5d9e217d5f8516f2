/** Where the service keeps its copy: an embedded SQLite file or a PostgreSQL schema. */
export type DatabaseConfig =
  | { readonly kind: "sqlite"; /** File path, or `:memory:`. */ readonly path: string }
  | {
      readonly kind: "postgres";
      /** The connection string as given, without the `schema` parameter. */
      readonly connectionString: string;
      /** Schema holding the tables, from the URL's `schema` parameter. @default "public" */
      readonly schema: string;
    };

/** The SQLite one of {@link DatabaseConfig}. */
export type SqliteDatabaseConfig = Extract<DatabaseConfig, { readonly kind: "sqlite" }>;
/** The PostgreSQL one of {@link DatabaseConfig}. */
export type PostgresDatabaseConfig = Extract<DatabaseConfig, { readonly kind: "postgres" }>;

/**
 * Calls the handler of the database's kind: the one place a driver is chosen by the
 * configuration (opening a store, reading a replay), so no other code compares a kind.
 *
 * @example
 * ```ts
 * const store = await onDatabase(database, {
 *   sqlite: ({ path }) => openSqliteStore({ path }),
 *   postgres: ({ connectionString, schema }) => openPostgresStore({ connectionString, schema }),
 * });
 * ```
 */
export function onDatabase<T>(
  database: DatabaseConfig,
  handlers: {
    readonly sqlite: (database: SqliteDatabaseConfig) => T;
    readonly postgres: (database: PostgresDatabaseConfig) => T;
  },
): T {
  return database.kind === "sqlite" ? handlers.sqlite(database) : handlers.postgres(database);
}
