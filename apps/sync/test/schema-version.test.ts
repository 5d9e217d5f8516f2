import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { latestSchemaVersion } from "../src/inventory-store/migrations.ts";
import { openPostgresStore } from "../src/inventory-store/postgres-store.ts";
import { openSqliteLoopStore, loopDatabasePath } from "../src/loop/store/sqlite-loop-store.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";

const pgAvailable = await postgresAvailable();
const newer = latestSchemaVersion + 1;
const refusal = new RegExp(
  `schema is at version ${newer}, newer than this sds-sync knows \\(${latestSchemaVersion}\\).*restore the backup`,
);

describe("a store migrated by a newer sds-sync", () => {
  it("is refused on SQLite, naming both versions and the way back, and left as it was", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-schema-"));
    const path = join(directory, "sds.db");
    try {
      await (await openSqliteStore({ path })).close();
      const raw = new DatabaseSync(path);
      raw
        .prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from the future', ?)")
        .run(newer, new Date().toISOString());
      raw.close();
      await expect(openSqliteStore({ path })).rejects.toThrow(refusal);
      const check = new DatabaseSync(path);
      expect(check.prepare("SELECT MAX(version) AS version FROM schema_migrations").get()).toEqual({ version: newer });
      check.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("is refused for the respondent loop's tables too (they have versions of their own)", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-schema-"));
    const path = join(directory, "sds.db");
    try {
      await (await openSqliteLoopStore(path)).close();
      const raw = new DatabaseSync(loopDatabasePath(path));
      const known = (
        raw.prepare("SELECT MAX(version) AS version FROM loop_schema_migrations").get() as { version: number }
      ).version;
      raw
        .prepare("INSERT INTO loop_schema_migrations (version, name, applied_at) VALUES (?, 'from the future', ?)")
        .run(known + 1, new Date().toISOString());
      raw.close();
      await expect(openSqliteLoopStore(path)).rejects.toThrow(
        `schema is at version ${known + 1}, newer than this sds-sync knows (${known})`,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it.skipIf(!pgAvailable)("is refused on PostgreSQL, naming both versions and the way back", async () => {
    const schema = freshSchemaName("sds_sync_schema");
    try {
      await (await openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 1 })).close();
      const client = new pg.Client({ connectionString: testDatabaseUrl });
      await client.connect();
      await client.query(
        `INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES ($1, 'from the future', now())`,
        [newer],
      );
      await client.end();
      await expect(openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 1 })).rejects.toThrow(
        refusal,
      );
    } finally {
      await dropSchema(schema);
    }
  });
});
