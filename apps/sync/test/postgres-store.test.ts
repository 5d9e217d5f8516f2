import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrations } from "../src/inventory-store/migrations.ts";
import { openPostgresStore } from "../src/inventory-store/postgres-store.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { emptyCommit, sampleSurvey, surveyWrite } from "./store-fixtures.ts";
import { describeStoreConformance } from "./store-conformance.ts";

const available = await postgresAvailable();

describe.skipIf(!available)("PostgreSQL", () => {
  describeStoreConformance("PostgreSQL", () => {
    const schema = freshSchemaName();
    return Promise.resolve({
      open: () => openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 2 }),
      destroy: () => dropSchema(schema),
    });
  });

  describe("PostgreSQL leadership", () => {
    const schema = freshSchemaName();
    const stores: SyncStore[] = [];
    const open = async () => {
      const store = await openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 2 });
      stores.push(store);
      return store;
    };
    afterAll(async () => {
      for (const store of stores) await store.close();
      await dropSchema(schema);
    });

    it("lets exactly one replica lead, and hands over when the leader lets go", async () => {
      const [first, second] = await Promise.all([open(), open()]);
      expect(await first.leadership.acquire()).toBe(true);
      expect(await second.leadership.acquire()).toBe(false);
      expect(await first.leadership.acquire()).toBe(true);
      await first.leadership.release();
      expect(first.leadership.isLeader).toBe(false);
      expect(await second.leadership.acquire()).toBe(true);
      expect(await first.leadership.acquire()).toBe(false);
      await second.leadership.release();
    });

    it("refuses a commit from a replica that does not lead", async () => {
      const [leader, follower] = await Promise.all([open(), open()]);
      expect(await leader.leadership.acquire()).toBe(true);
      expect(await follower.leadership.acquire()).toBe(false);
      await expect(
        follower.commitCycle(emptyCommit(new Date(), { surveys: [surveyWrite(sampleSurvey(1))] })),
      ).rejects.toThrow(/leadership/);
      expect(await leader.getSurvey(1)).toBeUndefined();
      await leader.commitCycle(emptyCommit(new Date(), { surveys: [surveyWrite(sampleSurvey(1))] }));
      expect((await follower.getSurvey(1))?.id).toBe(1);
      await leader.leadership.release();
    });

    it("migrates once when replicas open the same schema together", async () => {
      const fresh = freshSchemaName();
      const opened = await Promise.all(
        [1, 2, 3].map(() => openPostgresStore({ connectionString: testDatabaseUrl, schema: fresh, poolSize: 1 })),
      );
      for (const store of opened) await store.close();
      const client = new pg.Client({ connectionString: testDatabaseUrl });
      await client.connect();
      try {
        const applied = await client.query<{ version: number; times: number }>(
          `SELECT version, count(*)::int AS times FROM "${fresh}".schema_migrations GROUP BY version ORDER BY version`,
        );
        // Each migration recorded exactly once, and every table created once (a second run would have failed or duplicated rows).
        expect(applied.rows).toEqual(migrations.map((migration) => ({ version: migration.version, times: 1 })));
        const counters = await client.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM "${fresh}".counters`,
        );
        expect(counters.rows[0]?.count).toBe(1);
      } finally {
        await client.end();
      }
      await dropSchema(fresh);
    });
  });
});
