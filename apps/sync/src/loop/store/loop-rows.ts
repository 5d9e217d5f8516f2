import { bool, epochMillis, integer, isoTime, nullable, oneOf, text } from "../../database/columns.ts";
import type { RawRow } from "../../database/statement.ts";
import { microsToAmount } from "../money.ts";
import { storedCpiMicros, storedEarningsMicros } from "./stored-money.ts";
import {
  outcomeKinds,
  outcomeSources,
  type ConversionCounts,
  type EntryRecord,
  type OutcomeRecord,
  type PastEntry,
} from "./loop-store.ts";

/*
 * The row decoders of the loop's statements (loop-records.ts): each row shape read one way for
 * both drivers, and an unknown outcome or source is a StoreError (columns.ts), never a default.
 */

/** An outcome column. */
export const outcomeKind = oneOf(outcomeKinds);
/** A nullable outcome column (an entry without an outcome yet, a first transition). */
export const maybeOutcomeKind = nullable(outcomeKind);
const outcomeSource = oneOf(outcomeSources);

/** The columns of `loop_entries` {@link decodeEntry} reads: what a statement returning an entry selects (not `*`: the gate's columns would be read and dropped). */
export const ENTRY_COLUMNS = "token, survey_id, uid, cpi_micros, issued_at, outcome, link";

/** One row of `loop_entries`. */
export function decodeEntry(row: RawRow): EntryRecord {
  return {
    token: text(row.token),
    surveyId: integer(row.survey_id),
    uid: text(row.uid),
    cpi: microsToAmount(storedCpiMicros(row.cpi_micros)),
    issuedAt: isoTime(row.issued_at),
    outcome: maybeOutcomeKind(row.outcome),
    link: nullable(text)(row.link),
  };
}

/** One row of `loop_outcomes`. */
export function decodeOutcome(row: RawRow): OutcomeRecord {
  return {
    sequence: integer(row.sequence),
    token: text(row.token),
    outcome: outcomeKind(row.outcome),
    surveyId: nullable(integer)(row.survey_id),
    previousOutcome: maybeOutcomeKind(row.previous_outcome),
    receivedAt: isoTime(row.received_at),
    source: outcomeSource(row.source),
    reason: nullable(text)(row.reason),
    // Only where the statement joined the entry's flag (the feed's listing).
    ...(row.speeder !== undefined && row.speeder !== null && bool(row.speeder) ? { speeder: true as const } : {}),
  };
}

/** A respondent's entry as routing rules read it. */
export function decodePastEntry(row: RawRow): PastEntry {
  return {
    surveyId: integer(row.survey_id),
    enteredAt: epochMillis(row.issued_at),
    outcome: maybeOutcomeKind(row.outcome),
  };
}

/** The count columns of `loop_survey_counts`, `loop_survey_hours` and `loop_survey_windows`. */
export const COUNT_COLUMNS = [
  "entries",
  "completes",
  "terminates",
  "overquotas",
  "security",
  "reversals",
  "earnings_micros",
] as const;

/** The counts of a row of `loop_survey_counts`, or of a sum of count rows; `prefix` names them in a joined row (`d_entries`). */
export function decodeCounts(row: RawRow, prefix = ""): ConversionCounts {
  const count = (name: (typeof COUNT_COLUMNS)[number]) => row[`${prefix}${name}`] ?? 0;
  return {
    entries: integer(count("entries")),
    completes: integer(count("completes")),
    terminates: integer(count("terminates")),
    overquotas: integer(count("overquotas")),
    securityTerminates: integer(count("security")),
    reversals: integer(count("reversals")),
    earnings: microsToAmount(storedEarningsMicros(count("earnings_micros"))),
  };
}

/** No entries, no outcomes. */
export const zeroCounts: ConversionCounts = {
  entries: 0,
  completes: 0,
  terminates: 0,
  overquotas: 0,
  securityTerminates: 0,
  reversals: 0,
  earnings: 0,
};
