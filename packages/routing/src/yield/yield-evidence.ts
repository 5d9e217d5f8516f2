/**
 * What the service knows of one survey's outcomes, for yield ranking. It keeps these as
 * counters, updated as outcomes arrive ({@link recordOutcome} does it), and hands them to the
 * matcher with `SurveyMatcher.setYieldEvidence`.
 */
export interface YieldEvidence {
  /** Entries with a decided outcome (complete, terminate, overquota, security); pending entries are not counted. */
  readonly decided: number;
  /** Completes net of reversals: a reversed complete stays decided and counts as a failure. At most `decided`. */
  readonly completes: number;
  /** The marketplace's own conversion of the survey in `[0, 1]` when it publishes one (Lucid: `SystemConversion / 100`). */
  readonly marketplaceConversion?: number;
  /**
   * When the survey last reached a cut-off: the time of the outcome that brought it to a
   * multiple of `cutoff.entries` decided entries while it had no complete (see
   * {@link recordOutcome}). `undefined` when it never did.
   */
  readonly cutoffReachedAt?: number;
}

/**
 * Checks evidence before the matcher keeps it.
 *
 * @throws RangeError naming the survey and the field.
 */
export function checkYieldEvidence(surveyId: number, evidence: YieldEvidence): void {
  const { decided, completes, marketplaceConversion, cutoffReachedAt } = evidence;
  if (!Number.isInteger(decided) || decided < 0)
    throw new RangeError(`survey ${surveyId}: evidence.decided must be a non-negative integer, got ${decided}`);
  if (!Number.isInteger(completes) || completes < 0 || completes > decided) {
    throw new RangeError(
      `survey ${surveyId}: evidence.completes must be an integer from 0 to decided (${decided}), got ${completes}`,
    );
  }
  if (marketplaceConversion !== undefined && !(marketplaceConversion >= 0 && marketplaceConversion <= 1)) {
    throw new RangeError(
      `survey ${surveyId}: evidence.marketplaceConversion must be in [0, 1], got ${marketplaceConversion}`,
    );
  }
  if (cutoffReachedAt !== undefined && !Number.isFinite(cutoffReachedAt)) {
    throw new RangeError(
      `survey ${surveyId}: evidence.cutoffReachedAt must be epoch milliseconds, got ${cutoffReachedAt}`,
    );
  }
}
