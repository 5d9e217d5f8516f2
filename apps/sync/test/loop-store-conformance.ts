import { beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../src/common/errors.ts";
import type { LoopStore } from "../src/loop/store/loop-store.ts";
import { storesPerTest, type StoreLocation } from "./store-harness.ts";

/** A fresh, empty loop store location, opened as often as a test likes. */
export type LoopStoreHarness = StoreLocation<LoopStore>;

const t0 = new Date("2026-03-01T10:00:00.000Z");
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/** The behavioural contract of {@link LoopStore}, run against both implementations. */
export function describeLoopStoreConformance(name: string, createHarness: () => Promise<LoopStoreHarness>): void {
  describe(`${name} loop store conformance`, () => {
    const open = storesPerTest(createHarness);
    let store: LoopStore;
    beforeEach(async () => {
      store = await open();
    });

    it("records an entry once per token and refuses the token for another survey", async () => {
      const first = await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, at: t0 });
      expect(first).toMatchObject({
        kind: "recorded",
        entry: { token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, outcome: null },
      });
      expect((await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, at: later(1) })).kind).toBe(
        "existing",
      );
      expect((await store.recordEntry({ token: "t1", surveyId: 8, uid: "r1", cpi: 2.5, at: later(1) })).kind).toBe(
        "conflict",
      );
      expect(await store.conversion()).toEqual([
        {
          surveyId: 7,
          entries: 1,
          completes: 0,
          terminates: 0,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 0,
          earnings: 0,
        },
      ]);
    });

    it("records a repeat of the current outcome as nothing new", async () => {
      await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2.5, at: t0 });
      const first = await store.recordOutcome({ token: "t1", outcome: "complete", at: later(60) });
      expect(first).toEqual({
        recorded: true,
        record: {
          sequence: 1,
          token: "t1",
          outcome: "complete",
          surveyId: 7,
          previousOutcome: null,
          receivedAt: later(60).toISOString(),
          source: "s2s",
          reason: null,
        },
      });
      const repeat = await store.recordOutcome({ token: "t1", outcome: "complete", at: later(61) });
      expect(repeat).toEqual({ recorded: false, record: first.record });
      expect(await store.listOutcomes(0, 10)).toEqual([first.record]);
      expect(await store.outcomeCounts()).toEqual({ complete: 1, terminate: 0, overquota: 0, security: 0 });
    });

    it("gives concurrent duplicates exactly one record, also across two connections", async () => {
      const other = await open();
      const attempts = Array.from({ length: 12 }, (_, index) =>
        (index % 2 === 0 ? store : other).recordOutcome({ token: "dup", outcome: "terminate", at: t0 }),
      );
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
      expect(reconciled).toMatchObject({
        recorded: true,
        record: { sequence: 3, outcome: "security", previousOutcome: "complete", surveyId: 7 },
      });
      expect(
        (await store.listOutcomes(0, 10)).map((record) => [record.sequence, record.token, record.outcome]),
      ).toEqual([
        [1, "t1", "complete"],
        [2, "t2", "complete"],
        [3, "t1", "security"],
      ]);
      expect(await store.listOutcomes(2, 10)).toHaveLength(1);
      expect(await store.latestSequence()).toBe(3);
      expect(await store.conversion()).toEqual([
        {
          surveyId: 7,
          entries: 2,
          completes: 1,
          terminates: 0,
          overquotas: 0,
          securityTerminates: 1,
          reversals: 1,
          earnings: 3,
        },
      ]);
    });

    it("records complete, terminate, complete as three transitions in order: a return to an earlier outcome is not a repeat", async () => {
      await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2, at: t0 });
      const steps = [];
      for (const [outcome, seconds] of [
        ["complete", 1],
        ["terminate", 2],
        ["complete", 3],
        ["complete", 4],
      ] as const)
        steps.push(await store.recordOutcome({ token: "t1", outcome, at: later(seconds) }));
      expect(steps.map((step) => step.recorded)).toEqual([true, true, true, false]);
      expect((await store.listOutcomes(0, 10)).map((record) => [record.outcome, record.previousOutcome])).toEqual([
        ["complete", null],
        ["terminate", "complete"],
        ["complete", "terminate"],
      ]);
      expect(await store.conversion()).toEqual([
        {
          surveyId: 7,
          entries: 1,
          completes: 1,
          terminates: 0,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 1,
          earnings: 2,
        },
      ]);
      expect(await store.outcomeCounts()).toEqual({ complete: 2, terminate: 1, overquota: 0, security: 0 });
    });

    it("keeps an outcome that arrives before its entry apart, and attaches it when the entry is issued: the real call is then a repeat, and conversion counts it", async () => {
      const early = await store.recordOutcome({ token: "early", outcome: "complete", at: t0 });
      expect(early).toMatchObject({ recorded: true, record: { surveyId: null, outcome: "complete" } });
      expect(await store.orphanCount()).toBe(1);
      expect(await store.conversion()).toEqual([]);
      const issued = await store.recordEntry({ token: "early", surveyId: 9, uid: "r9", cpi: 4, at: later(5) });
      expect(issued).toMatchObject({
        kind: "recorded",
        entry: { outcome: "complete" },
        attached: [{ token: "early", outcome: "complete", surveyId: 9, source: "attach" }],
      });
      expect(await store.orphanCount()).toBe(0);
      expect((await store.recordOutcome({ token: "early", outcome: "complete", at: later(6) })).recorded).toBe(false);
      expect(await store.conversion()).toEqual([
        {
          surveyId: 9,
          entries: 1,
          completes: 1,
          terminates: 0,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 0,
          earnings: 4,
        },
      ]);
      // A later change still lands on the entry.
      expect((await store.recordOutcome({ token: "early", outcome: "security", at: later(7) })).record).toMatchObject({
        surveyId: 9,
        previousOutcome: "complete",
      });
    });

    it("counts per survey and per window as recorded: entries by issue hour, outcomes by arrival hour, reversals net of earnings", async () => {
      // The windows' totals move with the clock (hours leave them as time passes): "now" is now.
      const now = new Date();
      const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
      await store.recordEntry({ token: "old", surveyId: 5, uid: "a", cpi: 10, at: hoursAgo(100) });
      await store.recordOutcome({ token: "old", outcome: "complete", at: hoursAgo(99) });
      await store.recordEntry({ token: "new", surveyId: 5, uid: "b", cpi: 10, at: hoursAgo(2) });
      await store.recordOutcome({ token: "new", outcome: "complete", at: hoursAgo(1) });
      await store.recordEntry({ token: "pending", surveyId: 6, uid: "c", cpi: 3, at: hoursAgo(1) });
      // The old complete is taken back today: it leaves the hour it arrived in, the reversal counts now.
      await store.recordOutcome({ token: "old", outcome: "terminate", at: hoursAgo(0.5) });
      const summary = await store.conversionSummary(now, 10);
      const [five, six] = summary.surveys;
      expect(five).toEqual({
        surveyId: 5,
        lifetime: {
          entries: 2,
          completes: 1,
          terminates: 1,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 1,
          earnings: 10,
        },
        last24h: {
          entries: 1,
          completes: 1,
          terminates: 1,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 1,
          earnings: 10,
        },
        last7d: {
          entries: 2,
          completes: 1,
          terminates: 1,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 1,
          earnings: 10,
        },
      });
      expect(six).toMatchObject({ surveyId: 6, lifetime: { entries: 1, completes: 0 }, last24h: { entries: 1 } });
      // The totals are the sums over every survey; the list is cut at the limit, the survey earning most first.
      expect(summary.surveyCount).toBe(2);
      expect(summary.totals.lifetime).toMatchObject({
        entries: 3,
        completes: 1,
        terminates: 1,
        reversals: 1,
        earnings: 10,
      });
      expect(summary.totals.last24h).toMatchObject({ entries: 2, completes: 1, earnings: 10 });
      expect((await store.conversionSummary(now, 1)).surveys.map((survey) => survey.surveyId)).toEqual([5]);
      // A day and a bit later the last 24 hours hold none of it, the last 7 days all of it.
      const later30h = new Date(now.getTime() + 30 * 3_600_000);
      const [fiveLater] = (await store.conversionSummary(later30h, 10)).surveys;
      expect(fiveLater?.last24h).toEqual({
        entries: 0,
        completes: 0,
        terminates: 0,
        overquotas: 0,
        securityTerminates: 0,
        reversals: 0,
        earnings: 0,
      });
      expect(fiveLater?.last7d).toEqual(five?.last7d);
      // Old hourly rows go (the windows need 7 days of them); the totals kept do not move.
      expect(await store.pruneHourlyCounts(hoursAgo(-1))).toBeGreaterThan(0);
      expect((await store.conversionSummary(later30h, 10)).surveys[0]?.last7d).toEqual(five?.last7d);
    });

    it("counts a late entry and outcome in no window its hour already left", async () => {
      const now = new Date();
      const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
      // The first summary moves each window's edge to now: hours older than a window are out of it from here on.
      await store.conversionSummary(now, 10);
      await store.recordEntry({ token: "late", surveyId: 7, uid: "d", cpi: 2, at: hoursAgo(30) });
      await store.recordOutcome({ token: "late", outcome: "complete", at: hoursAgo(29) });
      await store.recordEntry({ token: "recent", surveyId: 7, uid: "e", cpi: 2, at: hoursAgo(3) });
      const [seven] = (await store.conversionSummary(now, 10)).surveys;
      expect(seven?.lifetime).toMatchObject({ entries: 2, completes: 1, earnings: 2 });
      expect(seven?.last24h).toMatchObject({ entries: 1, completes: 0, earnings: 0 });
      expect(seven?.last7d).toMatchObject({ entries: 2, completes: 1, earnings: 2 });
    });

    it("locks a respondent while deciding an entry: of concurrent entries one admission check at a time sees the others", async () => {
      const admitOnce = (history: { readonly entries: readonly { surveyId: number }[] }) =>
        history.entries.some((entry) => entry.surveyId === 41 || entry.surveyId === 42)
          ? "already in the group"
          : undefined;
      const other = await open();
      const attempts = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? store : other).recordEntry(
            { token: `g-${index}`, surveyId: index % 2 === 0 ? 41 : 42, uid: "same-person", cpi: 1, at: later(index) },
            admitOnce,
          ),
        ),
      );
      expect(attempts.filter((attempt) => attempt.kind === "recorded")).toHaveLength(1);
      expect(attempts.filter((attempt) => attempt.kind === "refused")).toHaveLength(9);
      expect((await store.respondentHistory("same-person", t0)).entries).toHaveLength(1);
    });

    it("imports a respondent's history once, and reads it back whole, imports and issued entries alike: the latest entry per survey and outcome, and the last 24 hours counted", async () => {
      await store.recordEntry({ token: "mine", surveyId: 3, uid: "p1", cpi: 1, at: later(30) });
      const batch = [
        { uid: "p1", surveyId: 1, enteredAt: later(10), outcome: "complete" as const },
        { uid: "p1", surveyId: 2, enteredAt: later(20) },
      ];
      expect(await store.importHistory(batch)).toEqual({ imported: 2, skipped: 0 });
      expect(await store.importHistory(batch)).toEqual({ imported: 0, skipped: 2 });
      // A second entry into survey 1 with the same outcome, older: condensed into the latest.
      expect(
        await store.importHistory([{ uid: "p1", surveyId: 1, enteredAt: later(-2 * 86_400), outcome: "complete" }]),
      ).toEqual({ imported: 1, skipped: 0 });
      const history = await store.respondentHistory("p1", later(60));
      expect([...history.entries].sort((a, b) => a.surveyId - b.surveyId)).toEqual([
        { surveyId: 1, enteredAt: later(10).getTime(), outcome: "complete" },
        { surveyId: 2, enteredAt: later(20).getTime(), outcome: null },
        { surveyId: 3, enteredAt: later(30).getTime(), outcome: null },
      ]);
      // The entry two days old is out of the caps' window.
      expect(history.last24h).toEqual({ entries: 3, completes: 1 });
      expect((await store.respondentHistory("p1", later(2 * 86_400))).last24h).toEqual({ entries: 0, completes: 0 });
      // Imported entries are history, not conversions of this supplier's links.
      expect((await store.conversion()).map((row) => row.surveyId)).toEqual([3]);
    });

    it("imports an entry whose token an older entry link holds, beside it, once", async () => {
      // Entry links refuse the import's namespace now; one recorded before (the store takes any token) still holds it.
      const enteredAt = later(5);
      const token = `history:8:${enteredAt.getTime()}:squatted`;
      expect((await store.recordEntry({ token, surveyId: 9, uid: "squatted", cpi: 1, at: later(6) })).kind).toBe(
        "recorded",
      );
      const batch = [{ uid: "squatted", surveyId: 8, enteredAt }];
      expect(await store.importHistory(batch)).toEqual({ imported: 1, skipped: 0 });
      expect(await store.importHistory(batch)).toEqual({ imported: 0, skipped: 1 });
      const surveys = (await store.respondentHistory("squatted", later(60))).entries.map((entry) => entry.surveyId);
      expect(surveys.sort()).toEqual([8, 9]);
    });

    it("rejects with StoreError once closed, for every read and write", async () => {
      await store.close();
      const calls: (() => Promise<unknown>)[] = [
        () => store.listOutcomes(0, 10),
        () => store.latestSequence(),
        () => store.feedHorizon(),
        () => store.conversion(),
        () => store.conversionSummary(t0, 10),
        () => store.outcomeCounts(),
        () => store.orphanCount(),
        () => store.respondentHistory("x", t0),
        () => store.recordEntry({ token: "z", surveyId: 1, uid: "", cpi: 1, at: t0 }),
        () => store.recordOutcome({ token: "z", outcome: "complete", at: t0 }),
      ];
      for (const call of calls) await expect(call()).rejects.toBeInstanceOf(StoreError);
    });

    it("reports the outcome feed's latest sequence, 0 while empty, repeats not counted", async () => {
      expect(await store.latestSequence()).toBe(0);
      await store.recordOutcome({ token: "t1", outcome: "complete", at: t0 });
      await store.recordOutcome({ token: "t1", outcome: "complete", at: later(1) });
      expect(await store.latestSequence()).toBe(1);
    });

    it("prunes the oldest outcomes as a prefix of the feed, never past a younger one, and reports the horizon", async () => {
      expect(await store.feedHorizon()).toBe(0);
      for (const [token, seconds] of [
        ["a", 1],
        ["b", 2],
        ["c", 10],
        ["d", 3],
      ] as const)
        await store.recordOutcome({ token, outcome: "complete", at: later(seconds) });
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
      // Counts are kept as recorded: pruning entries does not take back what they earned.
      expect((await store.conversion()).map((counts) => [counts.surveyId, counts.entries, counts.completes])).toEqual([
        [7, 3, 2],
        [8, 1, 0],
      ]);
      // The entries' outcomes are the outcome feed's business: pruned by their own target.
      expect(await store.listOutcomes(0, 10)).toHaveLength(2);
    });

    it("records an outcome for a token no entry carries, without a survey", async () => {
      const result = await store.recordOutcome({ token: "stranger", outcome: "overquota", at: t0 });
      expect(result.record).toMatchObject({ surveyId: null, previousOutcome: null });
      expect(await store.conversion()).toEqual([]);
      expect(await store.orphanCount()).toBe(1);
    });

    it("keeps what it recorded across a re-open", async () => {
      await store.recordEntry({ token: "t1", surveyId: 7, uid: "r1", cpi: 2, at: t0 });
      await store.recordOutcome({ token: "t1", outcome: "complete", at: later(1) });
      await store.close();
      const reopened = await open();
      expect(await reopened.listOutcomes(0, 10)).toHaveLength(1);
      expect((await reopened.recordOutcome({ token: "t1", outcome: "complete", at: later(2) })).recorded).toBe(false);
      expect((await reopened.recordOutcome({ token: "t2", outcome: "complete", at: later(2) })).record.sequence).toBe(
        2,
      );
    });
  });
}
