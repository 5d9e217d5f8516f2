import type { YieldEvidence } from "./yield-evidence.ts";

/** Prior strength when none is configured: the prior weighs as much as 10 entries. */
export const DEFAULT_PRIOR_STRENGTH = 10;

/** A prior mean is clamped into `[PRIOR_MEAN_FLOOR, 1 - PRIOR_MEAN_FLOOR]`, strictly inside (0, 1), so both Beta shapes stay positive. */
export const PRIOR_MEAN_FLOOR = 0.001;

/** The parameters of a Beta distribution over a survey's conversion. */
export interface BetaParameters {
  readonly alpha: number;
  readonly beta: number;
}

/** The prior over a survey's conversion, before its own outcomes. */
export interface ConversionPrior extends BetaParameters {
  /** The prior mean `alpha / (alpha + beta)`. */
  readonly mean: number;
  /** `alpha + beta`: how many entries the prior weighs as. */
  readonly strength: number;
  /** Where the mean comes from: the marketplace's published conversion, else the survey's `Ir / 100`. */
  readonly source: "marketplace" | "ir";
}

function clampMean(value: number): number {
  return Math.min(1 - PRIOR_MEAN_FLOOR, Math.max(PRIOR_MEAN_FLOOR, value));
}

/**
 * The Beta prior of a survey's conversion: centred on the marketplace's conversion where known,
 * else on `Ir / 100` (either clamped into (0, 1)), weighing `strength` pseudo-entries:
 * `alpha = strength · p0`, `beta = strength · (1 − p0)`.
 *
 * @param input the survey's `Ir` in percent (`NaN` counts as 0) and the marketplace's conversion in [0, 1] when known.
 * @throws RangeError when `strength` is not a positive finite number.
 * @example
 * ```ts
 * conversionPrior({ ir: 25 }); // { alpha: 2.5, beta: 7.5, mean: 0.25, strength: 10, source: "ir" }
 * ```
 */
export function conversionPrior(
  input: { readonly ir: number; readonly marketplaceConversion?: number | undefined },
  strength: number = DEFAULT_PRIOR_STRENGTH,
): ConversionPrior {
  if (!(strength > 0) || !Number.isFinite(strength))
    throw new RangeError(`prior strength must be a positive finite number, got ${strength}`);
  const known = input.marketplaceConversion;
  const source = known === undefined || Number.isNaN(known) ? "ir" : "marketplace";
  const mean = clampMean(source === "marketplace" ? (known ?? 0) : Number.isFinite(input.ir) ? input.ir / 100 : 0);
  return { alpha: strength * mean, beta: strength * (1 - mean), mean, strength, source };
}

/**
 * The posterior after the survey's own outcomes: `Beta(alpha + completes, beta + decided − completes)`.
 * Pending entries are not in `decided`, so they count neither way.
 */
export function conversionPosterior(
  prior: BetaParameters,
  evidence: Pick<YieldEvidence, "decided" | "completes"> | undefined,
): BetaParameters {
  const completes = evidence?.completes ?? 0;
  const failures = (evidence?.decided ?? 0) - completes;
  return { alpha: prior.alpha + completes, beta: prior.beta + failures };
}

/** The mean of a Beta distribution, `alpha / (alpha + beta)`: the expected conversion. */
export function posteriorMean(parameters: BetaParameters): number {
  return parameters.alpha / (parameters.alpha + parameters.beta);
}
