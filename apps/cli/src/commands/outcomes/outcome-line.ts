import type { Outcome } from "@sds/sync-client";
import { csvCell } from "../../framework/cell.ts";
import { csvLine, type CsvOptions } from "../../framework/csv.ts";
import type { Styles } from "../../framework/styles.ts";

const csvColumns = [
  "sequence",
  "receivedAt",
  "outcome",
  "previousOutcome",
  "token",
  "surveyId",
  "source",
  "reason",
] as const satisfies readonly (keyof Outcome)[];

/**
 * One outcome as a line for people, such as
 * `#12  2026-11-28T08:00:01Z  terminate ← complete  token t-1  survey 101377  reconcile: quality`.
 */
export function outcomeLine(outcome: Outcome, styles: Styles): string {
  const kind = outcome.outcome === "complete" ? styles.green(outcome.outcome) : outcome.outcome;
  const change = outcome.previousOutcome === null ? kind : `${kind} ← ${outcome.previousOutcome}`;
  const survey = outcome.surveyId === null ? "no entry" : `survey ${outcome.surveyId}`;
  const source = outcome.reason === null ? outcome.source : `${outcome.source}: ${outcome.reason}`;
  return `${styles.dim(`#${outcome.sequence}`)}  ${outcome.receivedAt}  ${change}  token ${outcome.token}  ${survey}  ${styles.dim(source)}\n`;
}

/** The CSV header of {@link outcomeCsvRow}. */
export function outcomeCsvHeader(options: CsvOptions): string {
  return csvLine(csvColumns, options);
}

/** One outcome as a CSV row (tokens and reasons come from outside: formulas defused unless --raw-csv). */
export function outcomeCsvRow(outcome: Outcome, options: CsvOptions): string {
  return csvLine(
    csvColumns.map((column) => csvCell(outcome[column])),
    options,
  );
}
