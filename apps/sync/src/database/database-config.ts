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
