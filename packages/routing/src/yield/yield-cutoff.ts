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

/** A survey's decided entries and the completes that stand among them: what the cut-off is decided on. */
export interface YieldTally {
  /** Entries with a decided outcome. */
  readonly decided: number;
  /** Completes net of reversals, at most `decided`. */
  readonly completes: number;
}

/**
 * The cut-off rule, the one every caller applies (the matcher's evidence, sds-sync's store as it
 * records an outcome, `sds-sync replay`): whether one change of a survey's tally, from `before`
 * to `after`, makes it fail a trial. Only a survey left with no complete can fail one:
 *
 * - a newly decided entry fails it when the decided count reaches a multiple of `entries`
 *   (20, 40, 60 …): a survey held out receives no yield-ranked entries, so once the cool-down
 *   is over it gets a fresh trial of up to `entries` more before the next cut-off;
 * - a reversal (a standing complete taken back; the entry stays decided) fails it when at least
 *   `entries` entries are decided: the evidence now shows `entries` or more decided entries and
 *   no complete, which is what a trial tests, so the cool-down starts at the reversal rather
 *   than at the next multiple;
 * - any other change (a failure revised into another failure, a failure revised into a complete,
 *   a repeat) fails none.
 *
 * @example
 * ```ts
 * reachesYieldCutoff({ decided: 19, completes: 0 }, { decided: 20, completes: 0 }); // true
 * reachesYieldCutoff({ decided: 25, completes: 1 }, { decided: 25, completes: 0 }); // true: a reversal
 * ```
 */
export function reachesYieldCutoff(before: YieldTally, after: YieldTally, cutoff?: YieldCutoff): boolean {
  const { entries } = resolveYieldCutoff(cutoff);
  if (after.completes > 0) return false;
  if (after.decided > before.decided) return after.decided % entries === 0;
  if (after.completes < before.completes) return after.decided >= entries;
  return false;
}

/**
 * The evidence after one more outcome, for a service that keeps counters as outcomes arrive; the
 * cut-off is decided by {@link reachesYieldCutoff}.
 *
 * - `complete`: one more decided entry and one more complete.
 * - `failure`: one more decided entry.
 * - `reversal`: a complete taken back, one complete fewer (the entry stays decided, now a
 *   failure); ignored when there is no complete to take back.
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
  resolveYieldCutoff(cutoff);
  const current: YieldEvidence = evidence ?? { decided: 0, completes: 0 };
  if (outcome === "reversal" && current.completes === 0) return current;
  const after: YieldTally = {
    decided: current.decided + (outcome === "reversal" ? 0 : 1),
    completes: current.completes + (outcome === "complete" ? 1 : outcome === "reversal" ? -1 : 0),
  };
  const reached = reachesYieldCutoff(current, after, cutoff);
  return { ...current, ...after, ...(reached ? { cutoffReachedAt: at } : {}) };
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
