import { microsToAmount } from "../loop/money.ts";

/*
 * What a replay reads: the entries the loop store recorded (issued through POST /v1/entry-links,
 * not imported history), in issue order, and what the service knew of each survey (its Ir from
 * the inventory's survey rows, live or closed, and the marketplace's conversion where Get Survey
 * Stats gave one). Read-only, and written for either driver once.
 */

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

/** The statements a replay runs, the same on both drivers. */
export const REPLAY_SQL = {
  entries:
    "SELECT survey_id, cpi_micros, issued_at, outcome, outcome_at FROM loop_entries WHERE source = 'link' ORDER BY issued_at, token",
  surveys: "SELECT id, ir FROM surveys",
  stats: "SELECT survey_id, conversion FROM loop_survey_stats WHERE conversion IS NOT NULL",
} as const;

type Row = Readonly<Record<string, unknown>>;

const OUTCOMES = new Set(["complete", "terminate", "overquota", "security"]);

/** Epoch milliseconds of a time column (ISO text from SQLite, a Date from pg). */
function millis(value: unknown): number {
  return value instanceof Date ? value.getTime() : Date.parse(String(value));
}

/** Builds the history from the rows of {@link REPLAY_SQL}, as either driver returns them. */
export function historyFromRows(rows: {
  readonly entries: readonly Row[];
  readonly surveys: readonly Row[];
  readonly stats: readonly Row[];
}): ReplayHistory {
  const entries = rows.entries.map((row): RecordedEntry => {
    const outcome =
      typeof row.outcome === "string" && OUTCOMES.has(row.outcome) ? (row.outcome as RecordedEntry["outcome"]) : null;
    return {
      surveyId: Number(row.survey_id),
      cpi: microsToAmount(Number(row.cpi_micros)),
      issuedAt: millis(row.issued_at),
      outcome,
      outcomeAt:
        outcome === null || row.outcome_at === null || row.outcome_at === undefined ? null : millis(row.outcome_at),
    };
  });
  const conversions = new Map(
    rows.stats.map((row) => [Number(row.survey_id), Math.min(1, Math.max(0, Number(row.conversion)))]),
  );
  const surveys = new Map<number, SurveyFacts>();
  for (const row of rows.surveys) {
    const id = Number(row.id);
    const conversion = conversions.get(id);
    surveys.set(id, { ir: Number(row.ir), ...(conversion === undefined ? {} : { marketplaceConversion: conversion }) });
  }
  // A survey the inventory no longer holds (retention pruned it) keeps what its stats said.
  for (const [id, conversion] of conversions)
    if (!surveys.has(id)) surveys.set(id, { ir: Number.NaN, marketplaceConversion: conversion });
  return { entries, surveys };
}
