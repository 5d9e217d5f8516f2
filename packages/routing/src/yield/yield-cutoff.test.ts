import { describe, expect, it } from "vitest";
import { heldOutUntil, isHeldOut, reachesYieldCutoff, recordOutcome, type YieldOutcome } from "./yield-cutoff.ts";
import type { YieldEvidence } from "./yield-evidence.ts";

const HOUR = 3_600_000;

function replay(
  outcomes: readonly YieldOutcome[],
  cutoff = { entries: 5, cooldownMs: 6 * HOUR },
): YieldEvidence | undefined {
  let evidence: YieldEvidence | undefined;
  outcomes.forEach((outcome, index) => {
    evidence = recordOutcome(evidence, outcome, index * HOUR, cutoff);
  });
  return evidence;
}

describe("recordOutcome and the cut-off", () => {
  it("counts completes and failures as decided entries", () => {
    expect(replay(["complete", "failure", "failure"])).toEqual({ decided: 3, completes: 1 });
  });

  it("holds a survey out from the outcome that made its N-th failure without a complete, for the cool-down", () => {
    const evidence = replay(["failure", "failure", "failure", "failure", "failure"]);
    expect(evidence).toEqual({ decided: 5, completes: 0, cutoffReachedAt: 4 * HOUR });
    expect(heldOutUntil(evidence, { cooldownMs: 6 * HOUR })).toBe(10 * HOUR);
    expect(isHeldOut(evidence, 10 * HOUR - 1, { cooldownMs: 6 * HOUR })).toBe(true);
    expect(isHeldOut(evidence, 10 * HOUR, { cooldownMs: 6 * HOUR })).toBe(false);
  });

  it("gives a fresh trial after the cool-down: the next cut-off comes N decided entries later", () => {
    const outcomes: YieldOutcome[] = Array.from({ length: 9 }, () => "failure");
    expect(replay(outcomes)?.cutoffReachedAt).toBe(4 * HOUR);
    expect(replay([...outcomes, "failure"])?.cutoffReachedAt).toBe(9 * HOUR);
  });

  it("never holds out a survey that has a complete, and counts a reversed complete as a failure", () => {
    const converting = replay(["failure", "complete", "failure", "failure", "failure", "failure"]);
    expect(converting?.cutoffReachedAt).toBeUndefined();
    expect(isHeldOut(converting, 0)).toBe(false);
    const reversed = recordOutcome(converting, "reversal", 100 * HOUR, { entries: 5 });
    expect(reversed).toEqual({ decided: 6, completes: 0, cutoffReachedAt: 100 * HOUR });
    expect(isHeldOut(reversed, 101 * HOUR)).toBe(true);
  });

  it("ignores a reversal when there is no complete to take back", () => {
    expect(recordOutcome({ decided: 3, completes: 0 }, "reversal", 0)).toEqual({ decided: 3, completes: 0 });
  });

  it("uses 20 entries and 6 hours by default", () => {
    let evidence: YieldEvidence | undefined;
    for (let index = 0; index < 20; index++) evidence = recordOutcome(evidence, "failure", 1000);
    expect(evidence?.cutoffReachedAt).toBe(1000);
    expect(heldOutUntil(evidence)).toBe(1000 + 6 * HOUR);
  });

  it("refuses a cut-off of no entries", () => {
    expect(() => recordOutcome(undefined, "failure", 0, { entries: 0 })).toThrow(
      /entries must be a positive integer, got 0/,
    );
  });
});

describe("reachesYieldCutoff, the one rule of the store, the ranker and replay", () => {
  const five = { entries: 5 };
  it("fails a trial when a newly decided entry brings a survey without a complete to a multiple of the cut-off", () => {
    expect(reachesYieldCutoff({ decided: 4, completes: 0 }, { decided: 5, completes: 0 }, five)).toBe(true);
    expect(reachesYieldCutoff({ decided: 5, completes: 0 }, { decided: 6, completes: 0 }, five)).toBe(false);
    expect(reachesYieldCutoff({ decided: 9, completes: 0 }, { decided: 10, completes: 0 }, five)).toBe(true);
    expect(reachesYieldCutoff({ decided: 4, completes: 1 }, { decided: 5, completes: 1 }, five)).toBe(false);
  });

  it("fails a trial when a reversal leaves no complete among at least the cut-off's decided entries", () => {
    expect(reachesYieldCutoff({ decided: 7, completes: 1 }, { decided: 7, completes: 0 }, five)).toBe(true);
    expect(reachesYieldCutoff({ decided: 4, completes: 1 }, { decided: 4, completes: 0 }, five)).toBe(false);
    expect(reachesYieldCutoff({ decided: 7, completes: 2 }, { decided: 7, completes: 1 }, five)).toBe(false);
  });

  it("fails none on a revision between failures, a failure revised into a complete, or a repeat", () => {
    expect(reachesYieldCutoff({ decided: 5, completes: 0 }, { decided: 5, completes: 0 }, five)).toBe(false);
    expect(reachesYieldCutoff({ decided: 5, completes: 0 }, { decided: 5, completes: 1 }, five)).toBe(false);
  });
});
