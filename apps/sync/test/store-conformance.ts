import { beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../src/common/errors.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { describeRetentionConformance } from "./retention-conformance.ts";
import { emptyCommit, qualificationsOf, quotasOf, runAt, sampleSurvey, surveyWrite } from "./store-fixtures.ts";
import { storesPerTest, type StoreHarness } from "./store-harness.ts";

export type { StoreHarness } from "./store-harness.ts";

const t0 = new Date("2026-03-01T10:00:00.000Z");
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/**
 * The one behavioural contract of {@link SyncStore}, run against every implementation.
 * `createHarness` gives each test its own empty location.
 */
export function describeStoreConformance(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store conformance`, () => {
    const open = storesPerTest(createHarness, (next) => next.leadership.acquire());
    let store: SyncStore;
    beforeEach(async () => {
      store = await open();
    });

    it("starts empty after migrations and re-opens without migrating twice", async () => {
      expect(await store.loadSurveyStates()).toEqual([]);
      expect(await store.latestSequence()).toBe(0);
      expect(await store.lastSuccessfulRun()).toBeUndefined();
      await store.commitCycle(
        emptyCommit(t0, { surveys: [surveyWrite(sampleSurvey(1))], changes: [{ type: "opened", surveyId: 1 }] }),
      );
      await store.close();
      const reopened = await open();
      expect((await reopened.loadSurveyStates()).map((state) => state.id)).toEqual([1]);
      expect(await reopened.latestSequence()).toBe(1);
    });

    it("stores a survey with its qualifications and quotas and returns the raw records unchanged", async () => {
      const survey = { ...sampleSurvey(42, { Has_Quotas: true }), UnknownUpstreamField: { nested: [1, 2] } };
      await store.commitCycle(
        emptyCommit(t0, {
          surveys: [surveyWrite(survey, { quotaCount: 2 })],
          qualifications: [qualificationsOf(42, 3)],
          quotas: [quotasOf(42, 2)],
          changes: [{ type: "opened", surveyId: 42 }],
        }),
      );
      const detail = await store.getSurvey(42);
      expect(detail?.survey).toEqual(survey);
      expect(detail?.status).toBe("live");
      expect(detail?.closedAt).toBeNull();
      expect(detail?.qualifications.map((q) => (q as { QualificationId: number }).QualificationId)).toEqual([
        100, 101, 102,
      ]);
      expect(detail?.quotas).toEqual([
        { QuotaId: 900, Conditions: [] },
        { QuotaId: 901, Conditions: [] },
      ]);
      const [state] = await store.loadSurveyStates();
      expect(state).toMatchObject({
        id: 42,
        status: "live",
        quotaCount: 2,
        qualificationsMarker: survey.Qual_LastUpdatedOnUTC,
        needsRefetch: false,
      });
      expect(await store.getSurvey(43)).toBeUndefined();
    });

    it("reads several surveys with their children in the order asked, and lists the live ones awaiting a refetch", async () => {
      await store.commitCycle(
        emptyCommit(t0, {
          surveys: [
            surveyWrite(sampleSurvey(1)),
            surveyWrite(sampleSurvey(2), { needsRefetch: true }),
            surveyWrite(sampleSurvey(3), { needsRefetch: true }),
          ],
          qualifications: [qualificationsOf(1, 2), qualificationsOf(2, 1)],
          changes: [],
        }),
      );
      await store.commitCycle(emptyCommit(later(60), { closedSurveyIds: [3], changes: [] }));
      const details = await store.getSurveys([2, 99, 1]);
      expect(details.map((detail) => [detail.id, detail.needsRefetch, detail.qualifications.length])).toEqual([
        [2, true, 1],
        [1, false, 2],
      ]);
      expect(await store.getSurveys([])).toEqual([]);
      expect(await store.refetchPendingIds()).toEqual([2]);
    });

    it("reads the records of several surveys as the JSON text stored, closed ones included, leaving out ids not stored", async () => {
      const surveys = [sampleSurvey(1), { ...sampleSurvey(2), Name: 'Ünïcode ✓ "quoted"' }, sampleSurvey(3)];
      await store.commitCycle(emptyCommit(t0, { surveys: surveys.map((survey) => surveyWrite(survey)) }));
      await store.commitCycle(emptyCommit(later(60), { closedSurveyIds: [3], changes: [] }));
      const records = await store.surveyRecords([3, 99, 2, 1]);
      expect([...records.keys()].sort()).toEqual([1, 2, 3]);
      for (const survey of surveys) expect(records.get(survey.SurveyId)).toBe(JSON.stringify(survey));
      expect(await store.surveyRecords([])).toEqual(new Map());
    });

    it("replaces child records instead of appending to them", async () => {
      await store.commitCycle(
        emptyCommit(t0, { surveys: [surveyWrite(sampleSurvey(1))], qualifications: [qualificationsOf(1, 4)] }),
      );
      await store.commitCycle(
        emptyCommit(later(60), { surveys: [surveyWrite(sampleSurvey(1))], qualifications: [qualificationsOf(1, 1)] }),
      );
      expect((await store.getSurvey(1))?.qualifications).toHaveLength(1);
    });

    it("closes absent surveys without deleting them, and reopens them", async () => {
      await store.commitCycle(
        emptyCommit(t0, {
          surveys: [surveyWrite(sampleSurvey(1)), surveyWrite(sampleSurvey(2))],
          qualifications: [qualificationsOf(1, 2)],
        }),
      );
      await store.commitCycle(
        emptyCommit(later(60), { closedSurveyIds: [1], changes: [{ type: "closed", surveyId: 1 }] }),
      );
      const closed = await store.getSurvey(1);
      expect(closed?.status).toBe("closed");
      expect(closed?.closedAt).toBe(later(60).toISOString());
      expect(closed?.qualifications).toHaveLength(2);
      expect(await store.stats()).toMatchObject({ live: 1, closed: 1 });

      await store.commitCycle(
        emptyCommit(later(120), {
          surveys: [surveyWrite(sampleSurvey(1))],
          changes: [{ type: "reopened", surveyId: 1 }],
        }),
      );
      const reopened = await store.getSurvey(1);
      expect(reopened?.status).toBe("live");
      expect(reopened?.closedAt).toBeNull();
      expect(reopened?.firstSeenAt).toBe(t0.toISOString());
      expect(reopened?.changedAt).toBe(later(120).toISOString());
    });

    it("numbers changes gaplessly across commits, in the order given", async () => {
      await store.commitCycle(
        emptyCommit(t0, {
          surveys: [1, 2, 3].map((id) => surveyWrite(sampleSurvey(id))),
          changes: [1, 2, 3].map((id) => ({ type: "opened" as const, surveyId: id })),
        }),
      );
      await store.commitCycle(emptyCommit(later(60)));
      const outcome = await store.commitCycle(
        emptyCommit(later(120), { closedSurveyIds: [2], changes: [{ type: "closed", surveyId: 2 }] }),
      );
      expect(outcome.firstSequence).toBe(4);
      expect(outcome.lastSequence).toBe(4);
      const changes = await store.listChanges(0, 100);
      expect(changes.map((change) => [change.sequence, change.type, change.surveyId])).toEqual([
        [1, "opened", 1],
        [2, "opened", 2],
        [3, "opened", 3],
        [4, "closed", 2],
      ]);
      expect(await store.listChanges(2, 1)).toMatchObject([{ sequence: 3 }]);
      expect(await store.latestSequence()).toBe(4);
      const [lastRun] = await store.listRuns(1);
      expect(lastRun).toMatchObject({ id: outcome.runId, firstSequence: 4, lastSequence: 4 });
    });

    it("rolls a failed commit back entirely and leaves no gap in the sequence", async () => {
      await store.commitCycle(
        emptyCommit(t0, { surveys: [surveyWrite(sampleSurvey(1))], changes: [{ type: "opened", surveyId: 1 }] }),
      );
      // The second survey breaks a NOT NULL constraint after the first one was written: the database refuses mid-transaction.
      const broken = surveyWrite(sampleSurvey(3));
      const failing = emptyCommit(later(60), {
        surveys: [
          surveyWrite(sampleSurvey(2)),
          { ...broken, columns: { ...broken.columns, languageId: null as unknown as number } },
        ],
        qualifications: [qualificationsOf(2, 1)],
        closedSurveyIds: [1],
        changes: [
          { type: "opened", surveyId: 2 },
          { type: "closed", surveyId: 1 },
        ],
      });
      await expect(store.commitCycle(failing)).rejects.toThrow(/commit failed/);
      expect(await store.getSurvey(2)).toBeUndefined();
      expect((await store.getSurvey(1))?.status).toBe("live");
      expect(await store.latestSequence()).toBe(1);
      expect(await store.listRuns(10)).toHaveLength(1);

      const outcome = await store.commitCycle(
        emptyCommit(later(120), {
          surveys: [surveyWrite(sampleSurvey(2))],
          changes: [{ type: "opened", surveyId: 2 }],
        }),
      );
      expect(outcome.firstSequence).toBe(2);
    });

    it("turns a driver error inside a cycle's batch write into a StoreError, and can still roll that cycle back", async () => {
      const broken = surveyWrite(sampleSurvey(1));
      const transaction = await store.beginCycle(t0);
      const write = transaction.write(
        emptyCommit(t0, {
          surveys: [{ ...broken, columns: { ...broken.columns, languageId: null as unknown as number } }],
        }),
      );
      await expect(write).rejects.toBeInstanceOf(StoreError);
      await expect(write).rejects.toThrow(/^cycle commit failed: .*language_id/);
      await expect(write).rejects.toHaveProperty(
        "cause",
        expect.objectContaining({ message: expect.stringContaining("language_id") as unknown }),
      );
      await transaction.rollback();
      expect(await store.loadSurveyStates()).toEqual([]);
      expect((await store.commitCycle(emptyCommit(later(60)))).runId).toBeGreaterThan(0);
    });

    it("opens one cycle transaction at a time: SQLite refuses a second with a StoreError, PostgreSQL holds it until the first is over", async () => {
      const transaction = await store.beginCycle(t0);
      try {
        if (store.kind === "sqlite")
          await expect(store.beginCycle(t0)).rejects.toThrow(new StoreError("a cycle transaction is already open"));
        else {
          // PostgreSQL: the second waits for the first's lock on the counter row; once the first is over, it opens.
          const second = store.beginCycle(later(1));
          await transaction.rollback();
          await (await second).rollback();
        }
      } finally {
        await transaction.rollback();
      }
    });

    it("keeps the batches of an open cycle invisible to readers until the commit", async () => {
      await store.commitCycle(
        emptyCommit(t0, { surveys: [surveyWrite(sampleSurvey(1))], changes: [{ type: "opened", surveyId: 1 }] }),
      );
      const transaction = await store.beginCycle(later(60));
      await transaction.write(
        emptyCommit(later(60), {
          surveys: [surveyWrite(sampleSurvey(2))],
          qualifications: [qualificationsOf(2, 2)],
          changes: [{ type: "opened", surveyId: 2 }],
        }),
      );
      await transaction.write(
        emptyCommit(later(60), { closedSurveyIds: [1], changes: [{ type: "closed", surveyId: 1 }] }),
      );

      expect(await store.getSurvey(2)).toBeUndefined();
      expect((await store.getSurvey(1))?.status).toBe("live");
      expect(await store.listChanges(0, 10)).toHaveLength(1);
      expect(await store.latestSequence()).toBe(1);
      expect(await store.listRuns(10)).toHaveLength(1);

      const outcome = await transaction.commit(runAt(later(60)));
      expect(outcome).toMatchObject({ firstSequence: 2, lastSequence: 3 });
      expect((await store.getSurvey(2))?.qualifications).toHaveLength(2);
      expect((await store.getSurvey(1))?.status).toBe("closed");
      expect((await store.listChanges(0, 10)).map((change) => [change.sequence, change.type, change.runId])).toEqual([
        [1, "opened", expect.any(Number) as unknown],
        [2, "opened", outcome.runId],
        [3, "closed", outcome.runId],
      ]);
      expect((await store.listRuns(1))[0]).toMatchObject({
        id: outcome.runId,
        status: "succeeded",
        firstSequence: 2,
        lastSequence: 3,
      });
    });

    it("discards a rolled-back cycle entirely, and the next one continues the sequence without a gap", async () => {
      const transaction = await store.beginCycle(t0);
      await transaction.write(
        emptyCommit(t0, { surveys: [surveyWrite(sampleSurvey(1))], changes: [{ type: "opened", surveyId: 1 }] }),
      );
      await transaction.rollback();
      await transaction.rollback();
      expect(await store.loadSurveyStates()).toEqual([]);
      expect(await store.listRuns(10)).toEqual([]);
      await expect(transaction.commit(runAt(t0))).rejects.toThrow(/over/);

      const outcome = await store.commitCycle(
        emptyCommit(later(60), { surveys: [surveyWrite(sampleSurvey(3))], changes: [{ type: "opened", surveyId: 3 }] }),
      );
      expect(outcome).toMatchObject({ firstSequence: 1, lastSequence: 1 });
    });

    it("commits a cycle without changes with null sequence bounds", async () => {
      const outcome = await store.commitCycle(emptyCommit(t0));
      expect(outcome).toMatchObject({ firstSequence: null, lastSequence: null });
      expect(await store.latestSequence()).toBe(0);
    });

    it("filters surveys by status, language, CPI, LOI, device and change time", async () => {
      const surveys = [
        sampleSurvey(1, { Cpi: "1.00", Loi: "5", LanguageId: 3, MobileAllowed: true, TabletAllowed: false }),
        sampleSurvey(2, { Cpi: "2.50", Loi: "15", LanguageId: 3, MobileAllowed: false, TabletAllowed: true }),
        sampleSurvey(3, { Cpi: "4.75", Loi: "25", LanguageId: 8, MobileAllowed: true, TabletAllowed: true }),
        sampleSurvey(4, { Cpi: "10", Loi: "10", LanguageId: 9, MobileAllowed: true, TabletAllowed: true }),
      ];
      await store.commitCycle(emptyCommit(t0, { surveys: surveys.map((survey) => surveyWrite(survey)) }));
      await store.commitCycle(emptyCommit(later(60), { closedSurveyIds: [4] }));
      const ids = async (query: Partial<Parameters<SyncStore["listSurveys"]>[0]>) =>
        (await store.listSurveys({ status: "live", limit: 100, ...query })).surveys.map((survey) => survey.id);

      expect(await ids({})).toEqual([1, 2, 3]);
      expect(await ids({ status: "closed" })).toEqual([4]);
      expect(await ids({ status: "all" })).toEqual([1, 2, 3, 4]);
      expect(await ids({ languageIds: [3] })).toEqual([1, 2]);
      expect(await ids({ languageIds: [8, 9], status: "all" })).toEqual([3, 4]);
      expect(await ids({ minCpi: 2.5 })).toEqual([2, 3]);
      expect(await ids({ maxCpi: 2.5 })).toEqual([1, 2]);
      expect(await ids({ minCpi: 2, maxCpi: 3 })).toEqual([2]);
      expect(await ids({ maxLoi: 15 })).toEqual([1, 2]);
      expect(await ids({ devices: ["mobile"] })).toEqual([1, 3]);
      expect(await ids({ devices: ["mobile", "tablet"] })).toEqual([3]);
      expect(await ids({ status: "all", updatedSince: later(30) })).toEqual([4]);
      expect(await ids({ status: "all", updatedSince: t0 })).toEqual([1, 2, 3, 4]);
    });

    it("pages through surveys by id with no duplicates or omissions", async () => {
      await store.commitCycle(
        emptyCommit(t0, {
          surveys: Array.from({ length: 25 }, (_, index) => surveyWrite(sampleSurvey(index * 3 + 1))),
        }),
      );
      const seen: number[] = [];
      let afterId: number | undefined;
      for (let pages = 0; pages < 10; pages += 1) {
        const page = await store.listSurveys({
          status: "all",
          limit: 10,
          ...(afterId === undefined ? {} : { afterId }),
        });
        seen.push(...page.surveys.map((survey) => survey.id));
        if (!page.hasMore) {
          expect(page.lastId).toBeNull();
          break;
        }
        afterId = page.lastId ?? undefined;
      }
      expect(seen).toEqual(Array.from({ length: 25 }, (_, index) => index * 3 + 1));
    });

    it("keeps run records, most recent first, and finds the last success past failures", async () => {
      await store.commitCycle(emptyCommit(t0));
      await store.recordRun(runAt(later(60), { status: "failed", error: "upstream unreachable" }));
      const runs = await store.listRuns(10);
      expect(runs.map((run) => run.status)).toEqual(["failed", "succeeded"]);
      expect(runs[0]).toMatchObject({
        error: "upstream unreachable",
        durationMs: 5,
        trigger: "schedule",
        replicaId: "test",
      });
      expect(runs[0]?.startedAt.toISOString()).toBe(later(60).toISOString());
      expect((await store.lastSuccessfulRun())?.startedAt.toISOString()).toBe(t0.toISOString());
    });

    it("quarantines malformed items once per key, counting sightings", async () => {
      const item = {
        key: "survey:5",
        surveyId: 5,
        source: "surveys" as const,
        item: JSON.stringify({ SurveyId: 5, Cpi: 3 }),
        issues: JSON.stringify([{ path: ["Cpi"], message: "bad" }]),
      };
      await store.commitCycle(emptyCommit(t0, { quarantine: [item] }));
      await store.commitCycle(
        emptyCommit(later(60), { quarantine: [item, { ...item, key: "item:abc", surveyId: null }] }),
      );
      const quarantined = await store.listQuarantine(10);
      expect(quarantined).toHaveLength(2);
      const first = quarantined.find((entry) => entry.key === "survey:5");
      expect(first).toMatchObject({
        surveyId: 5,
        timesSeen: 2,
        item: { SurveyId: 5, Cpi: 3 },
        firstSeenAt: t0.toISOString(),
        lastSeenAt: later(60).toISOString(),
      });
      expect((await store.stats()).quarantined).toBe(2);
    });

    it("counts a key given twice in one batch as one sighting, the last item standing, on either store", async () => {
      const item = {
        key: "survey:5",
        surveyId: 5,
        source: "surveys" as const,
        item: JSON.stringify({ SurveyId: 5, Cpi: 3 }),
        issues: JSON.stringify([{ path: ["Cpi"], message: "bad" }]),
      };
      const again = { ...item, item: JSON.stringify({ SurveyId: 5, Cpi: 4 }) };
      await store.commitCycle(emptyCommit(t0, { quarantine: [item, again] }));
      expect(await store.listQuarantine(10)).toMatchObject([{ key: "survey:5", timesSeen: 1, item: { Cpi: 4 } }]);
    });

    it("marks surveys for refetch and counts them", async () => {
      await store.commitCycle(
        emptyCommit(t0, {
          surveys: [surveyWrite(sampleSurvey(1), { needsRefetch: true }), surveyWrite(sampleSurvey(2))],
        }),
      );
      const states = await store.loadSurveyStates();
      expect(states.find((state) => state.id === 1)).toMatchObject({ needsRefetch: true, qualificationsMarker: null });
      expect((await store.stats()).needsRefetch).toBe(1);
      expect((await store.getSurvey(1))?.needsRefetch).toBe(true);
    });

    it("saves reference collections, replacing only those given", async () => {
      await store.saveCollections(
        [
          { name: "languages", body: '{"Languages":[{"Id":3}]}' },
          { name: "industries", body: '{"Industries":[]}' },
        ],
        t0,
      );
      await store.saveCollections([{ name: "languages", body: '{"Languages":[{"Id":4}]}' }], later(60));
      const collections = await store.listCollections();
      expect(collections).toEqual([
        { name: "industries", fetchedAt: t0.toISOString(), body: { Industries: [] } },
        { name: "languages", fetchedAt: later(60).toISOString(), body: { Languages: [{ Id: 4 }] } },
      ]);
      expect(await store.getCollection("languages")).toEqual(collections[1]);
      expect(await store.getCollection("studyTypes")).toBeUndefined();
    });

    it("a closed store rejects with StoreError: every call, never a raw driver error nor a synchronous throw", async () => {
      await store.commitCycle(
        emptyCommit(t0, { surveys: [surveyWrite(sampleSurvey(1))], changes: [{ type: "opened", surveyId: 1 }] }),
      );
      await store.close();
      const calls: Record<string, () => Promise<unknown>> = {
        loadSurveyStates: () => store.loadSurveyStates(),
        listSurveys: () => store.listSurveys({ status: "all", limit: 10 }),
        getSurvey: () => store.getSurvey(1),
        getSurveys: () => store.getSurveys([1]),
        surveyRecords: () => store.surveyRecords([1]),
        refetchPendingIds: () => store.refetchPendingIds(),
        listChanges: () => store.listChanges(0, 10),
        latestSequence: () => store.latestSequence(),
        listRuns: () => store.listRuns(10),
        lastSuccessfulRun: () => store.lastSuccessfulRun(),
        stats: () => store.stats(),
        countByLanguage: () => store.countByLanguage(),
        listQuarantine: () => store.listQuarantine(10),
        listCollections: () => store.listCollections(),
        getCollection: () => store.getCollection("languages"),
        feedHorizon: () => store.feedHorizon(),
        beginCycle: () => store.beginCycle(later(60)),
        commitCycle: () => store.commitCycle(emptyCommit(later(60))),
        recordRun: () => store.recordRun(runAt(later(60))),
        saveCollections: () => store.saveCollections([{ name: "languages", body: "{}" }], later(60)),
        pruneBatch: () => store.pruneBatch("changes", later(60), 10),
      };
      for (const [name, call] of Object.entries(calls)) {
        let result: Promise<unknown> | undefined;
        expect(() => (result = call()), name).not.toThrow();
        const error: unknown = await result?.then(
          () => undefined,
          (rejection: unknown) => rejection,
        );
        expect(error, name).toBeInstanceOf(StoreError);
        expect((error as StoreError).message, name).toMatch(new RegExp(`^store ${name} failed: `));
        expect((error as StoreError).cause, name).toBeInstanceOf(Error);
      }
      await store.close();
    });

    it("leads when it acquires leadership, and closes twice without error", async () => {
      expect(await store.leadership.acquire()).toBe(true);
      expect(store.leadership.isLeader).toBe(true);
      await store.close();
      await store.close();
    });
  });
  describeRetentionConformance(name, createHarness);
}
