import type { Survey } from "@sds/schemas";
import { createSeededRandom, deriveSeed } from "../random.ts";
import type { SeedOptions } from "./types.ts";

/*
 * Get Survey Stats shows no body in the spec. The figures follow Lucid's survey statistics
 * (`EffectiveEPC`, `SystemConversion` in percent, `LengthOfInterview`), once for every
 * supplier's traffic (`Global`) and once for the caller's own (`Supplier`).
 */

/** The statistics of one scope (every supplier's traffic, or the caller's). */
export type GeneratedScopeStats = {
  /** Entries into the survey. */
  readonly Starts: number;
  /** Completes among them. */
  readonly Completes: number;
  /** Completes per start in percent, 0..100, two decimals. */
  readonly SystemConversion: number;
  /** Earnings per click: CPI times conversion, four decimals. */
  readonly EffectiveEPC: number;
  /** Median interview length of the completes, in minutes. */
  readonly LengthOfInterview: number;
};

/** The statistics of a survey: `Global` always; `Supplier` only once the caller's respondents have started it. */
export type GeneratedSurveyStats = {
  readonly Global: GeneratedScopeStats;
  readonly Supplier?: GeneratedScopeStats;
};

function scopeStats(starts: number, completes: number, cpi: number, loi: number): GeneratedScopeStats {
  const conversion = starts === 0 ? 0 : completes / starts;
  return {
    Starts: starts,
    Completes: completes,
    SystemConversion: Math.round(conversion * 10_000) / 100,
    EffectiveEPC: Math.round(cpi * conversion * 10_000) / 10_000,
    LengthOfInterview: loi,
  };
}

/**
 * Builds the statistics of a survey, consistent with it: global completes are the survey's
 * `Completes`, starts follow from its incidence rate (plus drop-outs), EPC from its CPI, length
 * of interview near its LOI. The caller's share is 5 % to 50 % of the traffic; a survey its
 * respondents have not started yet has no `Supplier` scope (a client must fall back to `Global`).
 *
 * @example
 * ```ts
 * buildSurveyStats(buildSurvey()).Global.SystemConversion; // such as 31.25
 * ```
 */
export function buildSurveyStats(
  survey: Pick<Survey, "SurveyId" | "Completes" | "IncidentRate" | "LengthOfInterview" | "Revenue">,
  options: SeedOptions = {},
): GeneratedSurveyStats {
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, survey.SurveyId, 4));
  const completes = Math.max(0, Math.trunc(survey.Completes));
  const incidence = Math.min(1, Math.max(0.01, survey.IncidentRate / 100));
  const starts =
    completes === 0 ? random.int(0, 40) : Math.round((completes / incidence) * (1.1 + random.next() * 0.5));
  const loi = Math.max(1, Math.round(survey.LengthOfInterview * (0.8 + random.next() * 0.4)));
  const global = scopeStats(starts, completes, survey.Revenue, loi);

  const share = 0.05 + random.next() * 0.45;
  const supplierStarts = Math.round(starts * share);
  const supplierCompletes = Math.min(supplierStarts, Math.round(completes * share * (0.7 + random.next() * 0.6)));
  const supplierLoi = Math.max(1, Math.round(loi * (0.9 + random.next() * 0.2)));
  if (supplierStarts === 0) return { Global: global };
  return { Global: global, Supplier: scopeStats(supplierStarts, supplierCompletes, survey.Revenue, supplierLoi) };
}
