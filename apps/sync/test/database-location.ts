import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseConfig } from "../src/config/config.ts";
import { openStore } from "../src/inventory-store/open-store.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { dropSchema, freshSchemaName, schemaDatabaseUrl, testDatabaseUrl } from "./postgres.ts";

/** Where a spawned sds-sync keeps its store: its `DATABASE_URL`, the same as a config, and how to remove it. */
export interface DatabaseLocation {
  readonly url: string;
  readonly database: DatabaseConfig;
  readonly cleanup: () => Promise<void>;
}

/** A SQLite file in a fresh temporary directory named `<prefix>…`. */
export function sqliteLocation(prefix: string): DatabaseLocation {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  const path = join(directory, "sds.db");
  const cleanup = () => {
    rmSync(directory, { recursive: true, force: true });
    return Promise.resolve();
  };
  return { url: `sqlite:${path}`, database: { kind: "sqlite", path }, cleanup };
}

/** A fresh schema `<prefix>_…` in the test PostgreSQL. */
export function postgresLocation(prefix: string): DatabaseLocation {
  const schema = freshSchemaName(prefix);
  return {
    url: schemaDatabaseUrl(schema),
    database: { kind: "postgres", connectionString: testDatabaseUrl, schema },
    cleanup: () => dropSchema(schema),
  };
}

/** Opens the store `database` names for `work` only, as a reader beside the service would. */
export async function withStore<T>(database: DatabaseConfig, work: (store: SyncStore) => Promise<T>): Promise<T> {
  const store = await openStore(database);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
