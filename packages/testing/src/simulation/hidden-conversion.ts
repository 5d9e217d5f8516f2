import type { Survey } from "@sds/schemas";
import { createSeededRandom, deriveSeed } from "../random.ts";
import type { SimulatedOutcome } from "./types.ts";

/** The spread of the log-normal factor when none is given. */
export const DEFAULT_CONVERSION_SPREAD = 0.7;
/** The share of non-completes that end in `overquota` when none is given. */
export const DEFAULT_OVERQUOTA_SHARE = 0.2;

/** Options of {@link hiddenConversion}. */
export interface HiddenConversionOptions {
  /** The seed: the same seed and `SurveyId` give the same factor. @default 1 */
  readonly seed?: number;
  /** σ of the log-normal factor. @default 0.7 */
  readonly spread?: number;
}

/**
 * The true conversion of a survey, which the upstream does not publish: `Ir / 100` times a
 * log-normal factor of median 1 (drawn from the seed and the `SurveyId`), clamped to [0, 1].
 * `Ir` is the buyer's estimate; real conversion differs from it, which is what a router that
 * learns from outcomes can exploit and one that trusts `Ir` cannot.
 *
 * @example
 * ```ts
 * hiddenConversion({ SurveyId: 100001, Ir: "40" }, { seed: 7 }); // such as 0.23 or 0.71
 * ```
 */
export function hiddenConversion(
  survey: Pick<Survey, "SurveyId" | "Ir">,
  options: HiddenConversionOptions = {},
): number {
  const spread = options.spread ?? DEFAULT_CONVERSION_SPREAD;
  if (!Number.isFinite(spread) || spread < 0)
    throw new RangeError(`spread must be a finite number ≥ 0, got ${String(spread)}`);
  const incidence = Number(survey.Ir) / 100;
  if (!Number.isFinite(incidence)) return 0;
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, survey.SurveyId, 0xc0_4e));
  // Box-Muller: a standard normal from two uniforms (1 - u keeps the logarithm finite).
  const normal = Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
  return Math.min(1, Math.max(0, incidence * Math.exp(spread * normal)));
}

/**
 * Draws how an eligible entry ends: `complete` with probability `conversion`, otherwise
 * `overquota` with probability `overquotaShare`, else `terminate`. `next` is a uniform source in
 * [0, 1); two draws are taken whatever the outcome, so a stream stays aligned.
 */
export function drawOutcome(conversion: number, overquotaShare: number, next: () => number): SimulatedOutcome {
  const completes = next() < conversion;
  const overquota = next() < overquotaShare;
  if (completes) return "complete";
  return overquota ? "overquota" : "terminate";
}
