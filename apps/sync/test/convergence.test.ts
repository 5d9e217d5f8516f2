import fc from "fast-check";
import { describe, it } from "vitest";
import { openPostgresStore } from "../src/inventory-store/postgres-store.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { actionsArbitrary, checkConvergence } from "./convergence.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";

const available = await postgresAvailable();

describe("convergence", () => {
  it("converges on SQLite after any sequence of upstream changes, and the feed tells exactly those changes", async () => {
    await fc.assert(
      fc.asyncProperty(actionsArbitrary, (actions) =>
        checkConvergence(actions, async () => {
          const store = await openSqliteStore({ path: ":memory:" });
          return { store, dispose: () => store.close() };
        }),
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it.skipIf(!available)(
    "converges on PostgreSQL after any sequence of upstream changes",
    async () => {
      await fc.assert(
        fc.asyncProperty(actionsArbitrary, (actions) =>
          checkConvergence(actions, async () => {
            const schema = freshSchemaName("sds_sync_convergence");
            const store = await openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 2 });
            return {
              store,
              dispose: async () => {
                await store.close();
                await dropSchema(schema);
              },
            };
          }),
        ),
        { numRuns: 15 },
      );
    },
    120_000,
  );
});
