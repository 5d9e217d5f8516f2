import type { YieldEvidence } from "./yield-evidence.ts";

/**
 * Lucid's advice for surveys that do not convert: after `entries` decided entries without a
 * single complete, stop sending for `cooldownMs`, then give the survey a fresh trial.
 */
export interface YieldCutoff {
  /** Decided entries without a complete that make a failed trial. @default 20 */
  readonly entries?: number;
  /** How long a survey that failed a trial is held out of yield ranking, in milliseconds. @default 6 hours */
  readonly cooldownMs?: number;
}

/** The cut-off when none is configured: 20 entries, 6 hours. */
export const DEFAULT_YIELD_CUTOFF: Required<YieldCutoff> = { entries: 20, cooldownMs: 6 * 3_600_000 };

/**
 * A cut-off checked, with its defaults.
 *
 * @throws RangeError when `entries` is not a positive integer or `cooldownMs` is negative.
 */
export function resolveYieldCutoff(cutoff: YieldCutoff = {}): Required<YieldCutoff> {
  const entries = cutoff.entries ?? DEFAULT_YIELD_CUTOFF.entries;
  const cooldownMs = cutoff.cooldownMs ?? DEFAULT_YIELD_CUTOFF.cooldownMs;
  if (!Number.isInteger(entries) || entries < 1)
    throw new RangeError(`yield cutoff: entries must be a positive integer, got ${entries}`);
  if (!(cooldownMs >= 0))
    throw new RangeError(`yield cutoff: cooldownMs must be a non-negative number, got ${cooldownMs}`);
  return { entries, cooldownMs };
}

/** One outcome for {@link recordOutcome}: a complete, a failure (terminate, overquota, security), or a complete reversed later. */
export type YieldOutcome = "complete" | "failure" | "reversal";

/**
 * The evidence after one more outcome, for a service that keeps counters as outcomes arrive.
 *
 * - `complete`: one more decided entry and one more complete.
 * - `failure`: one more decided entry. When the survey then has no complete and its decided
 *   count is a multiple of `entries` (20, 40, 60 …), it has failed a trial: `cutoffReachedAt`
 *   becomes `at`. A survey held out receives no yield-ranked entries, so once the cool-down is
 *   over it gets a fresh trial of up to `entries` more before the next cut-off.
 * - `reversal`: a complete taken back, one complete fewer (the entry stays decided, now a
 *   failure). If that leaves no complete and at least `entries` decided, the cut-off is reached
 *   at `at`.
 *
 * A service that rebuilds counters from stored outcomes gets the same result by replaying them
 * in time order.
 *
 * @example
 * ```ts
 * evidence = recordOutcome(evidence, outcome === "complete" ? "complete" : "failure", Date.now());
 * matcher.setYieldEvidence(surveyId, evidence);
 * ```
 */
export function recordOutcome(
  evidence: YieldEvidence | undefined,
  outcome: YieldOutcome,
  at: number,
  cutoff?: YieldCutoff,
): YieldEvidence {
  const { entries } = resolveYieldCutoff(cutoff);
  const current: YieldEvidence = evidence ?? { decided: 0, completes: 0 };
  let { decided, completes } = current;
  let reached = false;
  if (outcome === "complete") {
    decided++;
    completes++;
  } else if (outcome === "failure") {
    decided++;
    reached = completes === 0 && decided % entries === 0;
  } else {
    if (completes === 0) return current;
    completes--;
    reached = completes === 0 && decided >= entries;
  }
  return { ...current, decided, completes, ...(reached ? { cutoffReachedAt: at } : {}) };
}

/**
 * Until when a survey is held out of yield ranking: `cutoffReachedAt + cooldownMs` while it has
 * no complete; `undefined` when the cut-off does not apply (a complete, or never reached).
 */
export function heldOutUntil(evidence: YieldEvidence | undefined, cutoff?: YieldCutoff): number | undefined {
  if (evidence?.cutoffReachedAt === undefined || evidence.completes > 0) return undefined;
  return evidence.cutoffReachedAt + resolveYieldCutoff(cutoff).cooldownMs;
}

/** Whether the survey is held out of yield ranking at `now` (see {@link heldOutUntil}). */
export function isHeldOut(evidence: YieldEvidence | undefined, now: number, cutoff?: YieldCutoff): boolean {
  const until = heldOutUntil(evidence, cutoff);
  return until !== undefined && now < until;
}
