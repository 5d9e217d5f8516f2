import { describe, expect, it } from "vitest";
import { OutcomeQueue } from "./outcome-queue.ts";
import { recordedPolicy, replayPolicy } from "./replay-evaluation.ts";
import type { RecordedEntry, ReplayHistory } from "./replay-history.ts";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 5, 10);
/** STALLS ranks first by Cpi × Ir (4 × 0.5) and never completes; CONVERTS (2 × 0.2) always does. */
const [STALLS, CONVERTS] = [501, 502] as const;
const surveys = new Map([
  [STALLS, { ir: 50 }],
  [CONVERTS, { ir: 20 }],
]);

/** Entries alternating between the two surveys, one a minute, each outcome a second after its entry (or `outcomeDelayMs` later). */
function alternating(count: number, outcomeDelayMs = 1000): RecordedEntry[] {
  return Array.from({ length: count }, (_, index) => {
    const surveyId = index % 2 === 0 ? STALLS : CONVERTS;
    const issuedAt = START + index * 60_000;
    return {
      surveyId,
      cpi: surveyId === STALLS ? 4 : 2,
      issuedAt,
      outcome: surveyId === CONVERTS ? "complete" : "terminate",
      outcomeAt: issuedAt + outcomeDelayMs,
    };
  });
}

describe("replayPolicy", () => {
  it("counts an entry for earnings only when its survey is the hour's best by Cpi × Ir, and the recorded figures count every entry", () => {
    const history: ReplayHistory = { entries: alternating(100), surveys };
    expect(recordedPolicy(history)).toMatchObject({
      evaluated: 100,
      matched: 100,
      completes: 50,
      earnings: 100,
      earningsPerEntry: 1,
    });
    // Earnings always picks STALLS: its 50 entries, none completed.
    expect(replayPolicy(history, "earnings")).toEqual({
      policy: "earnings",
      evaluated: 100,
      matched: 50,
      completes: 0,
      conversion: 0,
      earnings: 0,
      earningsPerEntry: 0,
    });
  });

  it("finds the survey that converts under yield, learning only from the entries it matched", () => {
    const history: ReplayHistory = { entries: alternating(200), surveys };
    const result = replayPolicy(history, "yield", { seed: 3 });
    // It tries STALLS first (its prior says 0.5), learns it fails and moves to CONVERTS, which completes every time.
    expect(result.matched).toBeGreaterThan(50);
    expect(result.conversion).toBeGreaterThan(0.8);
    expect(result.earningsPerEntry).toBeGreaterThan(1.6);
    expect(result.earningsPerEntry).toBeGreaterThan(replayPolicy(history, "earnings").earningsPerEntry);
  });

  it("gives the same figures for the same seed", () => {
    const history: ReplayHistory = { entries: alternating(200), surveys };
    expect(replayPolicy(history, "yield", { seed: 9 })).toEqual(replayPolicy(history, "yield", { seed: 9 }));
  });

  it("learns an outcome only once its recorded time has passed: yield without exploration then ranks as its prior does", () => {
    // Every outcome arrives a day after the last entry: nothing is known while replaying.
    const history: ReplayHistory = { entries: alternating(100, 2 * 24 * HOUR), surveys };
    expect(replayPolicy(history, "yield", { explore: false })).toMatchObject({ matched: 50, completes: 0 });
    // Outcomes a second later: STALLS's 20 matched failures (entries 0 to 38) reach the cut-off, and CONVERTS takes entries 39 to 99.
    expect(replayPolicy({ entries: alternating(100), surveys }, "yield", { explore: false })).toMatchObject({
      matched: 51,
      completes: 31,
    });
  });

  it("ranks only the surveys that received entries in the same hour, and skips pending entries", () => {
    const lone: RecordedEntry = {
      surveyId: CONVERTS,
      cpi: 2,
      issuedAt: START + 5 * HOUR,
      outcome: "complete",
      outcomeAt: START + 5 * HOUR + 1000,
    };
    const pending: RecordedEntry = { surveyId: CONVERTS, cpi: 2, issuedAt: START + 10, outcome: null, outcomeAt: null };
    const history: ReplayHistory = {
      entries: [...alternating(10), pending, lone].sort((left, right) => left.issuedAt - right.issuedAt),
      surveys,
    };
    // In its hour CONVERTS was alone: earnings picks it there and earns its Cpi.
    expect(replayPolicy(history, "earnings")).toMatchObject({ evaluated: 11, matched: 6, completes: 1, earnings: 2 });
  });

  it("holds a survey out under yield once it reached the cut-off, until the cool-down ends", () => {
    // Only STALLS, which never completes: after 3 failures it is held out for an hour, so the next entries in the hour do not match.
    const entries: RecordedEntry[] = Array.from({ length: 10 }, (_, index) => ({
      surveyId: STALLS,
      cpi: 4,
      issuedAt: START + index * 60_000,
      outcome: "terminate",
      outcomeAt: START + index * 60_000 + 1,
    }));
    expect(replayPolicy({ entries, surveys }, "yield", { cutoff: { entries: 3, cooldownMs: HOUR } }).matched).toBe(3);
  });
});

describe("OutcomeQueue", () => {
  it("gives back the outcomes due by a time, earliest first, whatever order they came in", () => {
    const queue = new OutcomeQueue();
    for (const at of [50, 10, 40, 20, 30, 60, 5]) queue.add({ surveyId: at, complete: false, at });
    expect(queue.takeUntil(35).map((outcome) => outcome.at)).toEqual([5, 10, 20, 30]);
    expect(queue.takeUntil(35)).toEqual([]);
    expect(queue.takeUntil(100).map((outcome) => outcome.at)).toEqual([40, 50, 60]);
  });
});
