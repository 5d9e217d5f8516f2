import { beforeEach, describe, expect, it } from "vitest";
import type { OutcomeStore } from "../src/loop/store/loop-store.ts";
import { storesPerTest, type StoreLocation } from "./store-harness.ts";

/** A fresh, empty outcome store location, opened as often as a test likes. */
export type OutcomeStoreHarness = StoreLocation<OutcomeStore>;

const t0 = new Date("2026-03-01T10:00:00.000Z");
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/** The behavioural contract of {@link OutcomeStore}, run against both implementations. */
export function describeOutcomeStoreConformance(name: string, createHarness: () => Promise<OutcomeStoreHarness>): void {
  describe(`${name} outcome store conformance`, () => {
    const open = storesPerTest(createHarness);
    let store: OutcomeStore;
    beforeEach(async () => {
      store = await open();
    });

    it("records an entry once per token and refuses the token for another survey", async () => {
      const first = await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, at: t0 });
      expect(first).toMatchObject({ kind: "recorded", entry: { token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, outcome: null } });
      expect((await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, at: later(1) })).kind).toBe("existing");
      expect((await store.recordEntry({ token: "t1", surveyId: 8, uid: "r1", cpi: 2.5, at: later(1) })).kind).toBe("conflict");
      expect(await store.conversion()).toEqual([{ surveyId: 7, entries: 1, completes: 0, terminates: 0, overquotas: 0, securityTerminates: 0, earnings: 0 }]);
    });

    it("records one outcome per token and outcome, and a repeat records nothing new", async () => {
      await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, at: t0 });
      const first = await store.recordOutcome({ token: "t1", outcome: "complete", at: later(60) });
      expect(first).toEqual({
        recorded: true,
        record: { sequence: 1, token: "t1", outcome: "complete", surveyId: 7, previousOutcome: null, receivedAt: later(60).toISOString() },
      });
      const repeat = await store.recordOutcome({ token: "t1", outcome: "complete", at: later(61) });
      expect(repeat).toEqual({ recorded: false, record: first.record });
      expect(await store.listOutcomes(0, 10)).toEqual([first.record]);
      expect(await store.outcomeCounts()).toEqual({ complete: 1, terminate: 0, overquota: 0, security: 0 });
    });

    it("gives concurrent duplicates exactly one record, also across two connections", async () => {
      const other = await open();
      const attempts = Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? store : other).recordOutcome({ token: "dup", outcome: "terminate", at: t0 }));
      const results = await Promise.all(attempts);
      expect(results.filter((result) => result.recorded)).toHaveLength(1);
      expect(await store.listOutcomes(0, 100)).toHaveLength(1);
    });

    it("records a different outcome for the same token as a transition and counts the entry by its latest outcome", async () => {
      await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 3, at: t0 });
      await store.recordEntry({ token: "t2", surveyId: 7, uid: "r2", cpi: 3, at: t0 });
      await store.recordOutcome({ token: "t1", outcome: "complete", at: later(1) });
      await store.recordOutcome({ token: "t2", outcome: "complete", at: later(2) });
      const reconciled = await store.recordOutcome({ token: "t1", outcome: "security", at: later(3) });
      expect(reconciled).toMatchObject({ recorded: true, record: { sequence: 3, outcome: "security", previousOutcome: "complete", surveyId: 7 } });
      expect((await store.listOutcomes(0, 10)).map((record) => [record.sequence, record.token, record.outcome])).toEqual([
        [1, "t1", "complete"],
        [2, "t2", "complete"],
        [3, "t1", "security"],
      ]);
      expect(await store.listOutcomes(2, 10)).toHaveLength(1);
      expect(await store.latestSequence()).toBe(3);
      expect(await store.conversion()).toEqual([{ surveyId: 7, entries: 2, completes: 1, terminates: 0, overquotas: 0, securityTerminates: 1, earnings: 3 }]);
    });

    it("reports the outcome feed's latest sequence, 0 while empty, repeats not counted", async () => {
      expect(await store.latestSequence()).toBe(0);
      await store.recordOutcome({ token: "t1", outcome: "complete", at: t0 });
      await store.recordOutcome({ token: "t1", outcome: "complete", at: later(1) });
      expect(await store.latestSequence()).toBe(1);
    });

    it("prunes the oldest outcomes as a prefix of the feed, never past a younger one, and reports the horizon", async () => {
      expect(await store.feedHorizon()).toBe(0);
      for (const [token, seconds] of [["a", 1], ["b", 2], ["c", 10], ["d", 3]] as const) await store.recordOutcome({ token, outcome: "complete", at: later(seconds) });
      expect(await store.pruneBatch("outcomes", later(5), 10)).toEqual({ deleted: 2, more: false, deferred: false });
      expect(await store.feedHorizon()).toBe(2);
      // Sequence 4 is old too, but 3 before it is young: the feed keeps no hole.
      expect((await store.listOutcomes(2, 10)).map((record) => record.sequence)).toEqual([3, 4]);
      expect(await store.pruneBatch("outcomes", later(5), 10)).toEqual({ deleted: 0, more: false, deferred: false });
      // In batches: a full batch says there may be more.
      expect(await store.pruneBatch("outcomes", later(20), 1)).toEqual({ deleted: 1, more: true, deferred: false });
      expect(await store.pruneBatch("outcomes", later(20), 1)).toEqual({ deleted: 1, more: true, deferred: false });
      expect(await store.pruneBatch("outcomes", later(20), 1)).toEqual({ deleted: 0, more: false, deferred: false });
      // Emptied, the feed's horizon is its last sequence; the next outcome follows it.
      expect(await store.feedHorizon()).toBe(4);
      expect((await store.recordOutcome({ token: "e", outcome: "terminate", at: later(30) })).record.sequence).toBe(5);
      expect(await store.feedHorizon()).toBe(4);
      expect(await store.latestSequence()).toBe(5);
    });

    it("prunes entry links issued before the horizon whose latest outcome, if any, came before it too", async () => {
      await store.recordEntry({ token: "old-open", surveyId: 7, uid: "r1", cpi: 2, at: t0 });
      await store.recordEntry({ token: "old-ended-late", surveyId: 7, uid: "r2", cpi: 2, at: t0 });
      await store.recordEntry({ token: "old-ended", surveyId: 7, uid: "r3", cpi: 2, at: t0 });
      await store.recordEntry({ token: "young", surveyId: 8, uid: "r4", cpi: 2, at: later(50) });
      await store.recordOutcome({ token: "old-ended", outcome: "complete", at: later(1) });
      await store.recordOutcome({ token: "old-ended-late", outcome: "complete", at: later(100) });
      expect(await store.pruneBatch("entries", later(10), 1)).toEqual({ deleted: 1, more: true, deferred: false });
      expect(await store.pruneBatch("entries", later(10), 10)).toEqual({ deleted: 1, more: false, deferred: false });
      expect((await store.conversion()).map((counts) => [counts.surveyId, counts.entries, counts.completes])).toEqual([
        [7, 1, 1],
        [8, 1, 0],
      ]);
      // The entries' outcomes are the outcome feed's business: pruned by their own target.
      expect(await store.listOutcomes(0, 10)).toHaveLength(2);
    });

    it("records an outcome for a token no entry carries, without a survey", async () => {
      const result = await store.recordOutcome({ token: "stranger", outcome: "overquota", at: t0 });
      expect(result.record).toMatchObject({ surveyId: null, previousOutcome: null });
      expect(await store.conversion()).toEqual([]);
    });

    it("keeps what it recorded across a re-open", async () => {
      await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2, at: t0 });
      await store.recordOutcome({ token: "t1", outcome: "complete", at: later(1) });
      await store.close();
      const reopened = await open();
      expect(await reopened.listOutcomes(0, 10)).toHaveLength(1);
      expect((await reopened.recordOutcome({ token: "t1", outcome: "complete", at: later(2) })).recorded).toBe(false);
      expect((await reopened.recordOutcome({ token: "t2", outcome: "complete", at: later(2) })).record.sequence).toBe(2);
    });
  });
}
