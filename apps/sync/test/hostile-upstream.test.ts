import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStore } from "../src/store/postgres-store.ts";
import { openSqliteStore } from "../src/store/sqlite-store.ts";
import type { SyncStore } from "../src/store/store.ts";
import { createCycleHarness, type CycleHarness, type CycleHarnessOptions } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";

const available = await postgresAvailable();

/** Everything a consumer can read of the store, without this run's times. */
async function readable(store: SyncStore) {
  const { surveys } = await store.listSurveys({ status: "all", limit: 1000 });
  const details = await Promise.all(surveys.map((survey) => store.getSurvey(survey.id)));
  return { details, changes: await store.listChanges(0, 10_000), sequence: await store.latestSequence() };
}

interface StoreKind {
  readonly open: () => Promise<{ store: SyncStore; dispose: () => Promise<void> }>;
}

const sqlite: StoreKind = {
  open: async () => ({ store: await openSqliteStore({ path: ":memory:" }), dispose: () => Promise.resolve() }),
};
const postgres: StoreKind = {
  async open() {
    const schema = freshSchemaName("sds_sync_hostile");
    const store = await openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 2 });
    return { store, dispose: () => dropSchema(schema) };
  },
};

describe.each([
  ["SQLite", true, sqlite],
  ["PostgreSQL", available, postgres],
] as const)("sds-sync against a hostile upstream, on %s", (_name, enabled, kind) => {
  let harness: CycleHarness | undefined;
  let dispose: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await harness?.close();
    await dispose?.();
    harness = undefined;
    dispose = undefined;
  });
  const start = async (options: Omit<CycleHarnessOptions, "store"> = {}) => {
    const opened = await kind.open();
    dispose = opened.dispose;
    harness = await createCycleHarness({ surveys: 12, ...options, store: opened.store });
    const first = await harness.cycle();
    expect(first.status).toBe("succeeded");
    return harness;
  };

  it.skipIf(!enabled)("fails a drip-fed cycle at its deadline with nothing applied, and the next cycle succeeds", async () => {
    const harness = await start({ cycle: { deadlineMs: 1500 } });
    const before = await readable(harness.store);
    harness.api.closeSurvey(harness.api.listSurveys(1001)[0]?.SurveyId ?? 0);
    harness.api.addSurvey(1001);
    // About 8 s for the whole body at this pace: only the deadline ends it sooner.
    harness.hostile.use({ kind: "drip", bytesPerChunk: 20, intervalMs: 20 });

    const began = performance.now();
    const result = await harness.cycle();

    expect(performance.now() - began).toBeLessThan(4000);
    expect(result).toMatchObject({ status: "failed", failure: "deadline", error: expect.stringMatching(/SYNC_CYCLE_TIMEOUT/) as unknown });
    expect(await readable(harness.store)).toEqual(before);
    expect(await harness.store.listRuns(1)).toMatchObject([{ status: "failed", error: result.error }]);

    harness.hostile.clear();
    expect((await harness.cycle()).counts).toMatchObject({ opened: 1, closed: 1 });
  });
});
