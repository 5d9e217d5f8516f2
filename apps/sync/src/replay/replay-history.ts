import { microsToAmount } from "../loop/money.ts";

/*
 * What a replay reads: the entries the loop store recorded (issued through POST /v1/entry-links,
 * not imported history), in issue order, and what the service knew of each survey (its Ir from
 * the inventory's survey rows, live or closed, and the marketplace's conversion where Get Survey
 * Stats gave one). Read-only, and written for either driver once (typed statements, database/).
 */

import { decimal, integer, isoTime, nullable } from "../database/columns.ts";
import { rows, type Program } from "../database/program.ts";
import { statement } from "../database/statement.ts";
import { maybeOutcomeKind } from "../loop/store/loop-rows.ts";

/** One recorded entry: the survey it went to, its Cpi then, and how it ended (its current outcome, reversals included). */
export interface RecordedEntry {
  readonly surveyId: number;
  readonly cpi: number;
  /** Epoch milliseconds. */
  readonly issuedAt: number;
  /** `null` while pending. */
  readonly outcome: "complete" | "terminate" | "overquota" | "security" | null;
  /** When the current outcome was recorded (epoch milliseconds), `null` while pending. */
  readonly outcomeAt: number | null;
}

/** What ranking knew of a survey. */
export interface SurveyFacts {
  /** Incidence rate in percent; `NaN` when the inventory no longer holds the survey. */
  readonly ir: number;
  /** The marketplace's conversion in [0, 1], when its stats gave one. */
  readonly marketplaceConversion?: number;
}

/** The history a replay runs over. */
export interface ReplayHistory {
  /** In issue order (ties by token). */
  readonly entries: readonly RecordedEntry[];
  readonly surveys: ReadonlyMap<number, SurveyFacts>;
}

/** The recorded entries, in issue order. */
export const RECORDED_ENTRIES = statement<[], RecordedEntry>(
  "SELECT survey_id, cpi_micros, issued_at, outcome, outcome_at FROM loop_entries WHERE source = 'link' ORDER BY issued_at, token",
  (row) => {
    const outcome = maybeOutcomeKind(row.outcome);
    const outcomeAt = nullable(isoTime)(row.outcome_at);
    return {
      surveyId: integer(row.survey_id),
      cpi: microsToAmount(integer(row.cpi_micros)),
      issuedAt: Date.parse(isoTime(row.issued_at)),
      outcome,
      outcomeAt: outcome === null || outcomeAt === null ? null : Date.parse(outcomeAt),
    };
  },
);
/** The incidence rate of every survey the inventory holds. */
export const SURVEY_INCIDENCE = statement<[], readonly [id: number, ir: number]>(
  "SELECT id, ir FROM surveys",
  (row) => [integer(row.id), decimal(row.ir)],
);
/** The marketplace's conversion of the surveys whose stats gave one. */
export const MARKETPLACE_CONVERSIONS = statement<[], readonly [surveyId: number, conversion: number]>(
  "SELECT survey_id, conversion FROM loop_survey_stats WHERE conversion IS NOT NULL",
  (row) => [integer(row.survey_id), Math.min(1, Math.max(0, decimal(row.conversion)))],
);

/** Reads the loop's part of the history (the loop store's tables). */
export function* readLoopHistory(): Program<{
  readonly entries: readonly RecordedEntry[];
  readonly conversions: ReadonlyMap<number, number>;
}> {
  return { entries: yield* rows(RECORDED_ENTRIES), conversions: new Map(yield* rows(MARKETPLACE_CONVERSIONS)) };
}

/** Reads what the inventory knew of each survey (its tables). */
export function* readSurveyIncidence(): Program<ReadonlyMap<number, number>> {
  return new Map(yield* rows(SURVEY_INCIDENCE));
}

/** The history from what {@link readLoopHistory} and {@link readSurveyIncidence} read. */
export function buildHistory(
  loop: { readonly entries: readonly RecordedEntry[]; readonly conversions: ReadonlyMap<number, number> },
  incidence: ReadonlyMap<number, number>,
): ReplayHistory {
  const surveys = new Map<number, SurveyFacts>();
  for (const [id, ir] of incidence) {
    const conversion = loop.conversions.get(id);
    surveys.set(id, { ir, ...(conversion === undefined ? {} : { marketplaceConversion: conversion }) });
  }
  // A survey the inventory no longer holds (retention pruned it) keeps what its stats said.
  for (const [id, conversion] of loop.conversions)
    if (!surveys.has(id)) surveys.set(id, { ir: Number.NaN, marketplaceConversion: conversion });
  return { entries: loop.entries, surveys };
}
