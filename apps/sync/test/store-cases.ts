import { afterAll, beforeAll } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl } from "./postgres.ts";

/** One store a suite over HTTP runs on. */
export interface StoreCase {
  readonly name: "SQLite" | "PostgreSQL";
  /** Its configuration: undefined for the embedded SQLite, a fresh PostgreSQL schema per call. */
  readonly database: () => DatabaseConfig | undefined;
}

/** The stores of a test file, and the PostgreSQL helpers its other tests share. */
export interface StoreCases {
  /** SQLite and PostgreSQL, for `describe.each(stores)`. */
  readonly stores: readonly StoreCase[];
  /** Whether PostgreSQL answers (known once the file's `beforeAll` ran; inside CI, its absence fails the file). */
  readonly postgres: () => boolean;
  /** A fresh PostgreSQL schema's configuration, dropped after the file. */
  readonly postgresDatabase: () => DatabaseConfig & { readonly kind: "postgres" };
  /** Whether `store` can be used in this run: a test skips with `context.skip()` when not. */
  readonly usable: (store: StoreCase) => boolean;
}

/**
 * The two stores the suites over HTTP run on: the embedded SQLite and PostgreSQL in schemas of
 * their own (`prefix_<pid>_<random>`). Registers the file's hooks: PostgreSQL is checked once
 * before the tests (outside CI a missing one is skipped with a message, inside CI it fails), and
 * every schema made is dropped after them. Call it once, at the top of a test file.
 */
export function storeCases(prefix: string): StoreCases {
  const schemas: string[] = [];
  let postgres = false;
  beforeAll(async () => {
    postgres = await postgresAvailable();
  });
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema).catch(() => undefined);
  });
  const postgresDatabase = () => {
    const schema = freshSchemaName(prefix);
    schemas.push(schema);
    return { kind: "postgres" as const, connectionString: schemaDatabaseUrl(schema), schema };
  };
  return {
    stores: [
      { name: "SQLite", database: () => undefined },
      { name: "PostgreSQL", database: postgresDatabase },
    ],
    postgres: () => postgres,
    postgresDatabase,
    usable: (store) => store.name !== "PostgreSQL" || postgres,
  };
}
