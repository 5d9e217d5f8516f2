import { beforeEach, describe, expect, it } from "vitest";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { storesPerTest, type StoreHarness } from "./store-harness.ts";
import { emptyCommit, runAt, sampleSurvey, surveyWrite } from "./store-fixtures.ts";

const t0 = new Date("2026-03-01T10:00:00.000Z");
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/** `count` opened changes for surveys `from`, `from + 1`, … */
const opened = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => ({ type: "opened" as const, surveyId: from + index }));

/** The retention contract of {@link SyncStore} (pruning and the feed horizon), run against every implementation. */
export function describeRetentionConformance(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`${name} store retention`, () => {
    const open = storesPerTest(createHarness, (next) => next.leadership.acquire());
    let store: SyncStore;
    beforeEach(async () => {
      store = await open();
    });

    it("prunes the oldest feed entries in batches and reports the horizon a consumer must not be behind", async () => {
      await store.commitCycle(emptyCommit(t0, { changes: opened(1, 3) }));
      await store.commitCycle(emptyCommit(later(60), { changes: opened(4, 1) }));
      await store.commitCycle(emptyCommit(later(120), { changes: opened(5, 2) }));
      expect(await store.feedHorizon()).toBe(0);

      expect(await store.pruneBatch("changes", later(90), 2)).toEqual({ deleted: 2, more: true, deferred: false });
      expect(await store.feedHorizon()).toBe(2);
      expect(await store.pruneBatch("changes", later(90), 2)).toEqual({ deleted: 2, more: true, deferred: false });
      expect(await store.pruneBatch("changes", later(90), 2)).toEqual({ deleted: 0, more: false, deferred: false });

      expect(await store.feedHorizon()).toBe(4);
      expect((await store.listChanges(0, 100)).map((change) => change.sequence)).toEqual([5, 6]);
      expect(await store.latestSequence()).toBe(6);
      const next = await store.commitCycle(emptyCommit(later(180), { changes: opened(7, 1) }));
      expect(next.firstSequence).toBe(7);
    });

    it("keeps the horizon at the latest sequence once every entry is pruned, and continues the sequence after it", async () => {
      await store.commitCycle(emptyCommit(t0, { changes: opened(1, 3) }));
      expect(await store.pruneBatch("changes", later(60), 100)).toEqual({ deleted: 3, more: false, deferred: false });
      expect(await store.listChanges(0, 100)).toEqual([]);
      expect(await store.feedHorizon()).toBe(3);
      await store.commitCycle(emptyCommit(later(120), { changes: opened(4, 1) }));
      expect(await store.feedHorizon()).toBe(3);
      expect((await store.listChanges(3, 100)).map((change) => change.sequence)).toEqual([4]);
    });

    it("never cuts a hole in the feed when an older entry follows a younger one (replica clocks disagree)", async () => {
      await store.commitCycle(emptyCommit(later(120), { changes: opened(1, 1) }));
      await store.commitCycle(emptyCommit(t0, { changes: opened(2, 1) }));
      expect(await store.pruneBatch("changes", later(60), 100)).toEqual({ deleted: 0, more: false, deferred: false });
      expect((await store.listChanges(0, 100)).map((change) => change.sequence)).toEqual([1, 2]);
      expect(await store.feedHorizon()).toBe(0);
    });

    it("prunes old run records but keeps the most recent success, which readiness reads", async () => {
      await store.commitCycle(emptyCommit(t0));
      await store.recordRun(runAt(later(60), { status: "failed", error: "upstream unreachable" }));
      await store.commitCycle(emptyCommit(later(120)));
      await store.recordRun(runAt(later(180), { status: "failed", error: "upstream unreachable" }));
      await store.recordRun(runAt(later(300), { status: "failed", error: "upstream unreachable" }));

      expect(await store.pruneBatch("runs", later(200), 100)).toEqual({ deleted: 3, more: false, deferred: false });
      const runs = await store.listRuns(10);
      expect(runs.map((run) => [run.status, run.startedAt.toISOString()])).toEqual([
        ["failed", later(300).toISOString()],
        ["succeeded", later(120).toISOString()],
      ]);
      expect((await store.lastSuccessfulRun())?.startedAt.toISOString()).toBe(later(120).toISOString());
      expect(await store.pruneBatch("runs", later(400), 100)).toEqual({ deleted: 1, more: false, deferred: false });
      expect((await store.listRuns(10)).map((run) => run.status)).toEqual(["succeeded"]);
    });

    it("prunes quarantine entries resolved before the horizon and keeps unresolved ones however old", async () => {
      const item = (key: string) => ({
        key,
        surveyId: null,
        source: "qualifications" as const,
        item: "{}",
        issues: "[]",
      });
      await store.commitCycle(
        emptyCommit(t0, {
          quarantine: [item("item:resolved-early"), item("item:resolved-late"), item("item:current")],
        }),
      );
      await store.commitCycle(emptyCommit(later(30), { resolvedQuarantineKeys: ["item:resolved-early"] }));
      await store.commitCycle(emptyCommit(later(120), { resolvedQuarantineKeys: ["item:resolved-late"] }));
      expect(await store.pruneBatch("quarantine", later(60), 100)).toEqual({
        deleted: 1,
        more: false,
        deferred: false,
      });
      expect(await store.pruneBatch("quarantine", later(60), 100)).toEqual({
        deleted: 0,
        more: false,
        deferred: false,
      });
      expect((await store.listQuarantine(10)).map((entry) => entry.key)).toEqual(["item:current"]);
      // The entry resolved after the horizon is still history; it goes once it is older too.
      expect(await store.pruneBatch("quarantine", later(200), 100)).toEqual({
        deleted: 1,
        more: false,
        deferred: false,
      });
      expect((await store.listQuarantine(10)).map((entry) => entry.key)).toEqual(["item:current"]);
      expect((await store.stats()).quarantined).toBe(1);
    });

    it("counts live and closed surveys by language for the status page", async () => {
      await store.commitCycle(
        emptyCommit(t0, {
          surveys: [1, 2, 3].map((id) => surveyWrite(sampleSurvey(id, { LanguageId: id === 3 ? 9 : 3 }))),
        }),
      );
      await store.commitCycle(emptyCommit(later(60), { closedSurveyIds: [2] }));
      expect(await store.countByLanguage()).toEqual([
        { languageId: 3, live: 1, closed: 1 },
        { languageId: 9, live: 1, closed: 0 },
      ]);
    });

    it("leaves an open cycle's transaction whole: its writes all commit, and none of them are pruned", async () => {
      await store.commitCycle(emptyCommit(t0, { changes: opened(1, 2) }));
      const transaction = await store.beginCycle(later(10));
      await transaction.write(
        emptyCommit(later(10), { surveys: [surveyWrite(sampleSurvey(3))], changes: opened(3, 1) }),
      );
      const outcome = await store.pruneBatch("changes", later(60), 100);
      // SQLite has one writer, which the cycle holds: the batch waits for the next pass. PostgreSQL prunes beside it.
      expect(outcome).toEqual(
        store.kind === "sqlite"
          ? { deleted: 0, more: true, deferred: true }
          : { deleted: 2, more: false, deferred: false },
      );
      await transaction.commit(runAt(later(10)));
      expect((await store.listChanges(0, 100)).map((change) => change.sequence)).toEqual(
        store.kind === "sqlite" ? [1, 2, 3] : [3],
      );
      expect((await store.getSurvey(3))?.id).toBe(3);
    });
  });
}
