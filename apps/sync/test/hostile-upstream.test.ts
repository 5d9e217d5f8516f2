import { afterEach, describe, expect, it } from "vitest";
import { onDatabase } from "../src/database/database-config.ts";
import { openPostgresStore } from "../src/inventory-store/postgres-store.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { outOfRangeSurveyIds } from "@sds/testing";
import { isSurveyId } from "../src/survey-index/survey-id.ts";
import { createCycleHarness, type CycleHarness, type CycleHarnessOptions } from "./harness.ts";
import { storeCases, type StoreCase } from "./store-cases.ts";

const { stores, usable } = storeCases("sds_sync_hostile");

/** Everything a consumer can read of the store, without this run's times. */
async function readable(store: SyncStore) {
  const { surveys } = await store.listSurveys({ status: "all", limit: 1000 });
  const details = await Promise.all(surveys.map((survey) => store.getSurvey(survey.id)));
  return { details, changes: await store.listChanges(0, 10_000), sequence: await store.latestSequence() };
}

/** A test's own store on `store`: SQLite in memory, or a fresh PostgreSQL schema (storeCases drops it after the file). */
const openStore = (store: StoreCase): Promise<SyncStore> =>
  onDatabase(store.database() ?? { kind: "sqlite", path: ":memory:" }, {
    sqlite: ({ path }) => openSqliteStore({ path }),
    postgres: ({ connectionString, schema }) => openPostgresStore({ connectionString, schema, poolSize: 2 }),
  });

describe.each(stores)("sds-sync against a hostile upstream, on $name", (store) => {
  let harness: CycleHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  const start = async (options: Omit<CycleHarnessOptions, "store"> = {}) => {
    harness = await createCycleHarness({ surveys: 12, ...options, store: await openStore(store) });
    const first = await harness.cycle();
    expect(first.status).toBe("succeeded");
    return harness;
  };

  it("fails a drip-fed cycle at its deadline with nothing applied, and the next cycle succeeds", async (context) => {
    if (!usable(store)) context.skip();
    // The deadline is the hostile cycle's alone: the honest ones have what time a loaded machine needs.
    const harness = await start();
    const before = await readable(harness.store);
    harness.api.closeSurvey(harness.api.listSurveys(1001)[0]?.SurveyId ?? 0);
    harness.api.addSurvey(1001);
    // About 8 s for the whole body at this pace: only the deadline ends it sooner.
    harness.hostile.use({ kind: "drip", bytesPerChunk: 20, intervalMs: 20 });

    const began = performance.now();
    const result = await harness.cycle({ deadlineMs: 1500 });

    expect(performance.now() - began).toBeLessThan(4000);
    expect(result).toMatchObject({
      status: "failed",
      failure: "deadline",
      error: expect.stringMatching(/SYNC_CYCLE_TIMEOUT/) as unknown,
    });
    expect(await readable(harness.store)).toEqual(before);
    expect(await harness.store.listRuns(1)).toMatchObject([{ status: "failed", error: result.error }]);

    harness.hostile.clear();
    expect((await harness.cycle()).counts).toMatchObject({ opened: 1, closed: 1 });
  });

  it("quarantines wrong types, keeps the named surveys, and clears the quarantine once the records are valid again", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start();
    const [first] = harness.api.listSurveys(1001);
    const id = first?.SurveyId ?? 0;
    const stored = await harness.store.getSurvey(id);
    harness.hostile.use({ kind: "wrong-types" });

    const bad = await harness.cycle();

    expect(bad).toMatchObject({ status: "succeeded", counts: { quarantined: 4, closed: 0 } });
    expect(await harness.store.getSurvey(id)).toEqual(stored);
    expect((await harness.store.stats()).quarantined).toBe(4);
    expect((await harness.store.listQuarantine(10)).map((entry) => entry.surveyId)).toContain(id);

    harness.hostile.clear();
    const good = await harness.cycle();
    expect(good.counts).toMatchObject({ quarantined: 0, changes: 0 });
    expect((await harness.store.stats()).quarantined).toBe(0);
    expect(await harness.store.listQuarantine(10)).toEqual([]);
  });

  it("stops counting a survey for refetch once it closed, and clears its child quarantine", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start();
    const [target] = harness.api.listSurveys(1001);
    const id = target?.SurveyId ?? 0;
    harness.api.replaceQualifications(id, [
      { QualificationId: 9, QualificationTypeId: 1, OptionIds: [1], OptionCodes: ["1"] },
    ]);
    harness.api.faults.add({ kind: "status", status: 500, path: `/survey-qualifications/${id}` });
    await harness.cycle();
    expect((await harness.store.stats()).needsRefetch).toBe(1);

    harness.api.closeSurvey(id);
    harness.api.faults.clear();
    await harness.cycle();

    expect(await harness.store.stats()).toMatchObject({ needsRefetch: 0, closed: 1 });
  });

  it("quarantines an oversize record (stored as its size and head) and keeps the survey's last good version", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start({ cycle: { maxRecordBytes: 16_384 } });
    const [first] = harness.api.listSurveys(1001);
    const id = first?.SurveyId ?? 0;
    const stored = await harness.store.getSurvey(id);
    harness.hostile.use({ kind: "oversize-field", bytes: 50_000 });

    const result = await harness.cycle();

    expect(result).toMatchObject({ status: "succeeded", counts: { quarantined: 1, closed: 0, updated: 0 } });
    expect(await harness.store.getSurvey(id)).toEqual(stored);
    const [entry] = await harness.store.listQuarantine(10);
    expect(entry).toMatchObject({ key: `surveys:${id}`, item: { truncated: true }, issues: [{ code: "too_big" }] });
    expect(JSON.stringify(entry?.item).length).toBeLessThan(2000);
  });

  it("fails a cycle whose list passes SYNC_MAX_LIST_BYTES, keeping the last good data", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start({ maxListBytes: 40_000 });
    const before = await readable(harness.store);
    harness.hostile.use({ kind: "oversize-field", bytes: 60_000 });

    const result = await harness.cycle();

    expect(result).toMatchObject({ status: "failed", error: expect.stringMatching(/SYNC_MAX_LIST_BYTES/) as unknown });
    expect(await readable(harness.store)).toEqual(before);
  });

  it("quarantines ids outside the positive safe integer rule and stores none of them", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start();
    harness.hostile.use({ kind: "out-of-range-ids" });

    const result = await harness.cycle();

    expect(result).toMatchObject({
      status: "succeeded",
      counts: { quarantined: outOfRangeSurveyIds.length, opened: 0, closed: 0 },
    });
    const { surveys } = await harness.store.listSurveys({ status: "all", limit: 1000 });
    expect(surveys).toHaveLength(12);
    expect(surveys.every((survey) => isSurveyId(survey.id))).toBe(true);
    expect(await harness.store.getSurvey(-5)).toBeUndefined();
    expect((await harness.store.listQuarantine(10)).every((entry) => entry.surveyId === null)).toBe(true);
  });

  it("holds the closures of an empty list, serves the last good data, and closes only after the same surveys stay absent", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start({ closureGuard: { maxShare: 0.25, confirmCycles: 3 } });
    const before = await readable(harness.store);
    harness.hostile.use({ kind: "empty-list" });

    const glitch = await harness.cycle();

    expect(glitch).toMatchObject({ status: "succeeded", counts: { closed: 0, closuresHeld: 12, changes: 0 } });
    expect((await readable(harness.store)).details).toEqual(before.details);
    expect(harness.guard?.status()).toMatchObject({ count: 12, absentCycles: 1 });

    // The list comes back: nothing closed, nothing reopened, nothing held.
    harness.hostile.clear();
    expect((await harness.cycle()).counts).toMatchObject({ changes: 0, closuresHeld: 0 });
    expect(await harness.store.latestSequence()).toBe(before.sequence);

    // Absent three cycles in a row: then they close.
    harness.hostile.use({ kind: "empty-list" });
    expect((await harness.cycle()).counts).toMatchObject({ closed: 0, closuresHeld: 12 });
    expect((await harness.cycle()).counts).toMatchObject({ closed: 0, closuresHeld: 12 });
    expect((await harness.cycle()).counts).toMatchObject({ closed: 12, closuresHeld: 0 });
    expect((await harness.store.stats()).live).toBe(0);
  });

  it("closes held surveys at the next cycle once an operator confirms, and closes ordinary churn at once", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start({ closureGuard: { maxShare: 0.25, confirmCycles: 5 } });
    const [first, second] = harness.api.listSurveys(1001);
    harness.api.closeSurvey(first?.SurveyId ?? 0);
    harness.api.closeSurvey(second?.SurveyId ?? 0);
    expect((await harness.cycle()).counts).toMatchObject({ closed: 2, closuresHeld: 0 });

    harness.hostile.use({ kind: "empty-list" });
    expect((await harness.cycle()).counts).toMatchObject({ closed: 0, closuresHeld: 10 });
    expect(harness.guard?.confirm()).toBe(10);
    expect((await harness.cycle()).counts).toMatchObject({ closed: 10, closuresHeld: 0 });
  });

  it("keeps the stored version of a survey listed twice, quarantines its id, and does not flap between cycles", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start();
    const repeated = harness.api
      .listSurveys(1001)
      .slice(0, 2)
      .map((survey) => survey.SurveyId);
    const before = await readable(harness.store);
    harness.takeRequests();
    harness.hostile.use({ kind: "duplicate-ids", count: 2 });

    const first = await harness.cycle();

    expect(first).toMatchObject({ status: "succeeded", counts: { quarantined: 2, changes: 0, listed: 10 } });
    // The first copies were met before the repeats: the cycle read the list once more, with those ids set aside.
    expect(harness.takeRequests().filter((request) => request.operationId === "listSurveys")).toHaveLength(2);
    expect(await readable(harness.store)).toEqual(before);
    const quarantine = await harness.store.listQuarantine(10);
    expect(quarantine.map((entry) => entry.surveyId).sort()).toEqual([...repeated].sort());
    expect(quarantine[0]?.issues).toMatchObject([{ code: "duplicate_id" }]);

    for (let round = 0; round < 2; round += 1) {
      const again = await harness.cycle();
      expect(again.counts).toMatchObject({ quarantined: 2, changes: 0 });
      expect(harness.takeRequests().filter((request) => request.operationId === "listSurveys")).toHaveLength(1);
    }
    expect(await readable(harness.store)).toEqual(before);

    harness.hostile.clear();
    const healed = await harness.cycle();
    expect(healed.counts).toMatchObject({ listed: 12, changes: 0 });
    expect((await harness.store.stats()).quarantined).toBe(0);
    expect(await harness.store.latestSequence()).toBe(before.sequence);
  });

  // it.for, not it.each: only it.for hands the test its context (to skip without PostgreSQL).
  it.for([
    [{ kind: "hang" }, /SYNC_CYCLE_TIMEOUT/],
    [{ kind: "hang", afterBytes: 300 }, /SYNC_CYCLE_TIMEOUT/],
    [{ kind: "truncated-body", keep: 0.7 }, /ended before its JSON was complete|JSON/],
    [{ kind: "html-body" }, /JSON|content type|html/i],
    [{ kind: "error-at-end" }, /hasError: true/],
  ] as const)(
    "fails the cycle on %o with nothing applied, and syncs once the upstream is honest",
    async ([scenario, error], context) => {
      if (!usable(store)) context.skip();
      // A deadline for the hanging upstream's cycle alone: the others fail on what they read, and
      // the honest cycles have what time a loaded machine needs.
      const harness = await start();
      harness.api.closeSurvey(harness.api.listSurveys(1001)[0]?.SurveyId ?? 0);
      harness.api.addSurvey(1001);
      const before = await readable(harness.store);
      harness.hostile.use(scenario);

      const result = await harness.cycle(scenario.kind === "hang" ? { deadlineMs: 1500 } : {});

      expect(result).toMatchObject({ status: "failed", error: expect.stringMatching(error) as unknown });
      expect(await readable(harness.store)).toEqual(before);
      expect(await harness.store.listRuns(1)).toMatchObject([{ status: "failed" }]);
      harness.hostile.clear();
      expect((await harness.cycle()).counts).toMatchObject({ opened: 1, closed: 1 });
    },
  );

  it("keeps going when the key is revoked mid-run: per-survey failures are marked for refetch, a refused list fails the cycle, and it heals", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start();
    const added = [harness.api.addSurvey(1001), harness.api.addSurvey(1001)].map((survey) => survey.SurveyId);
    harness.hostile.use({ kind: "unauthorized-mid-run", after: 1 });

    const partial = await harness.cycle();
    expect(partial).toMatchObject({ status: "succeeded", counts: { opened: 2 } });
    // Every per-survey request of the two new surveys was refused (their qualifications, and quotas where they have some).
    expect(partial.counts.fetchFailures).toBeGreaterThanOrEqual(2);
    expect((await harness.store.stats()).needsRefetch).toBe(2);

    const refused = await harness.cycle();
    expect(refused).toMatchObject({ status: "failed", error: expect.stringMatching(/401/) as unknown });

    harness.hostile.clear();
    const healed = await harness.cycle();
    expect(healed.counts).toMatchObject({ qualificationsChanged: 2, fetchFailures: 0 });
    expect((await harness.store.stats()).needsRefetch).toBe(0);
    for (const id of added)
      expect((await harness.store.getSurvey(id))?.qualifications).toEqual(harness.api.getSurvey(id)?.qualifications);
  });

  it("quarantines an oversize qualification record, keeps the stored ones, and marks the survey for refetch", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start({ cycle: { maxRecordBytes: 16_384 } });
    const [target] = harness.api.listSurveys(1001);
    const id = target?.SurveyId ?? 0;
    const stored = (await harness.store.getSurvey(id))?.qualifications;
    const codes = Array.from({ length: 4000 }, (_, index) => String(10_000 + index));
    harness.api.replaceQualifications(id, [
      { QualificationId: 45, QualificationTypeId: 2, OptionIds: codes.map(Number), OptionCodes: codes },
    ]);

    const result = await harness.cycle();

    expect(result).toMatchObject({ status: "succeeded", counts: { quarantined: 1, fetchFailures: 1 } });
    expect(await harness.store.getSurvey(id)).toMatchObject({ needsRefetch: true, qualifications: stored });
    expect(await harness.store.listQuarantine(10)).toMatchObject([
      { key: `qualifications:${id}`, item: { truncated: true }, issues: [{ code: "too_big" }] },
    ]);
  });
});
