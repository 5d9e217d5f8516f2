import fc from "fast-check";
import { describe, it } from "vitest";
import { openPostgresStore } from "../src/inventory-store/postgres-store.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { actionsArbitrary, checkConvergence } from "./convergence.ts";
import { dropSchema } from "./postgres.ts";
import { storeCases } from "./store-cases.ts";

/** Only its PostgreSQL half: the test on SQLite opens its own store in memory. */
const { postgres, postgresDatabase } = storeCases("sds_sync_convergence");

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

  it("converges on PostgreSQL after any sequence of upstream changes", async (context) => {
    if (!postgres()) context.skip();
    await fc.assert(
      fc.asyncProperty(actionsArbitrary, (actions) =>
        checkConvergence(actions, async () => {
          const { connectionString, schema } = postgresDatabase();
          const store = await openPostgresStore({ connectionString, schema, poolSize: 2 });
          return {
            store,
            dispose: async () => {
              await store.close();
              // At once, not only after the file (storeCases drops it again then, if still there):
              // a shrinking failure runs the property many times, each on a schema of its own.
              await dropSchema(schema);
            },
          };
        }),
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});
