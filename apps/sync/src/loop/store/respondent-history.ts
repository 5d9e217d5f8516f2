import { CAP_WINDOW_MS } from "@sds/routing";
import { integer } from "../../database/columns.ts";
import type { RawRow } from "../../database/statement.ts";
import { decodePastEntry } from "./loop-rows.ts";
import type { PastEntry, RespondentHistory } from "./loop-store.ts";

/*
 * The one way the loop reads a respondent's history for the routing rules (entry links, /v1/match
 * and the sessions' steps alike): every entry of the uid, never its latest N, condensed by the
 * database to one row per survey and outcome. The latest entry per survey and outcome decides
 * re-entry and the groups as the whole list would (a rule reads an entry's survey, its outcome and
 * whether it is recent enough, and the latest is the most recent), and `recent` counts the rows
 * of the caps' window, so a history of any length is answered in rows per survey entered, read
 * from the index `loop_entries_respondent_surveys` (uid, survey_id, outcome, issued_at).
 */

/**
 * The condensed history of the respondent `uid` names (`?` or an expression), as a statement a
 * caller selects from (a derived table): columns `survey_id`, `issued_at` (the latest), `outcome`
 * and `recent` (entries issued after the first placeholder, the caps' window start from
 * {@link capWindowStart}). `read` is an optional SQL condition that skips the read (the anonymous
 * respondent's entries are no history).
 */
export function respondentHistorySql(uid: string, read = "1 = 1"): string {
  return `SELECT survey_id, MAX(issued_at) AS issued_at, outcome, SUM(CASE WHEN issued_at > ? THEN 1 ELSE 0 END) AS recent
  FROM loop_entries WHERE ${read} AND uid = ${uid} GROUP BY survey_id, outcome`;
}

/** The start of the caps' window at `now` (bound to {@link respondentHistorySql}'s first placeholder). */
export function capWindowStart(now: Date): string {
  return new Date(now.getTime() - CAP_WINDOW_MS).toISOString();
}

/** One row of {@link respondentHistorySql}: the latest entry of a survey and outcome, and how many of them are recent. */
export interface HistoryRow {
  readonly entry: PastEntry;
  readonly recent: number;
}

/** A row of {@link respondentHistorySql}, decoded. */
export function decodeHistoryRow(row: RawRow): HistoryRow {
  return { entry: decodePastEntry(row), recent: integer(row.recent) };
}

/** The history the rules read, from its decoded rows. */
export function historyOf(rows: readonly HistoryRow[]): RespondentHistory {
  let recent = 0;
  let recentCompletes = 0;
  for (const { entry, recent: count } of rows) {
    recent += count;
    if (entry.outcome === "complete") recentCompletes += count;
  }
  return { entries: rows.map((row) => row.entry), last24h: { entries: recent, completes: recentCompletes } };
}

/** The rows of {@link respondentHistorySql} as the rules read them. */
export function decodeRespondentHistory(rows: readonly RawRow[]): RespondentHistory {
  return historyOf(rows.map(decodeHistoryRow));
}
