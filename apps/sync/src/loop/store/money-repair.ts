import { dialects } from "../../database/dialects.ts";
import type { Dialect } from "../../database/migration-ledger.ts";

/*
 * A loop migration (after the idempotency keys): money that earlier versions stored as NaN or Infinity, repaired. Before the Cpi
 * was checked (loop/money.ts), a Cpi of 400 nines was recorded as Infinity; version 9 turned it
 * into Infinity micros, and every total it reached became Infinity or NaN. Reading such a row is
 * a store error (stored-money.ts), so the status and every later outcome of that token answered
 * 503 for good, and the marketplace retried for good. Here each such value is kept, as it was, in
 * `loop_money_repairs` (what an operator reads to settle it with the marketplace), the entry's Cpi
 * becomes 0 (it was never a price, so it earns nothing), and each poisoned total is recounted
 * from the entries: lifetime and hourly earnings are the Cpis of the completes that stand (as
 * version 3 counted them), the windows' the sum of their hours (as version 5 did).
 */

/** Not an amount any write could have made: NaN (PostgreSQL orders it above every number), ±Infinity, negative. */
const poisoned = (column: string) => `NOT (${column} >= 0 AND ${column} <= ${Number.MAX_SAFE_INTEGER})`;

/** What the repair keeps of a value before it is replaced. */
const kept = (table: string, key: string, column: string) => `
INSERT INTO loop_money_repairs (table_name, row_key, column_name, stored)
  SELECT '${table}', ${key}, '${column}', CAST(${column} AS TEXT) FROM ${table} WHERE ${poisoned(column)};`;

/** The statements of the money repair migration for `dialect`. */
export function moneyRepair(dialect: Dialect): string {
  const hourOf = (column: string) => dialects[dialect].hourOf(column);
  return `
CREATE TABLE loop_money_repairs (
  table_name TEXT NOT NULL,
  row_key TEXT NOT NULL,
  column_name TEXT NOT NULL,
  stored TEXT NOT NULL
);${kept("loop_entries", "token", "cpi_micros")}
UPDATE loop_entries SET cpi_micros = 0 WHERE ${poisoned("cpi_micros")};${kept("loop_survey_counts", "CAST(survey_id AS TEXT)", "earnings_micros")}
UPDATE loop_survey_counts SET earnings_micros = (
  SELECT COALESCE(SUM(e.cpi_micros), 0) FROM loop_entries e
  WHERE e.survey_id = loop_survey_counts.survey_id AND e.outcome = 'complete'
) WHERE ${poisoned("earnings_micros")};${kept("loop_survey_hours", "CAST(survey_id AS TEXT) || ':' || CAST(hour AS TEXT)", "earnings_micros")}
UPDATE loop_survey_hours SET earnings_micros = (
  SELECT COALESCE(SUM(e.cpi_micros), 0) FROM loop_entries e
  WHERE e.survey_id = loop_survey_hours.survey_id AND e.outcome = 'complete' AND ${hourOf("e.outcome_at")} = loop_survey_hours.hour
) WHERE ${poisoned("earnings_micros")};${kept("loop_survey_windows", "CAST(survey_id AS TEXT) || ':' || window_name", "earnings_micros")}
UPDATE loop_survey_windows SET earnings_micros = (
  SELECT COALESCE(SUM(h.earnings_micros), 0) FROM loop_survey_hours h
  WHERE h.survey_id = loop_survey_windows.survey_id
    AND h.hour > (SELECT value FROM loop_counters WHERE name = 'window-edge:' || loop_survey_windows.window_name)
) WHERE ${poisoned("earnings_micros")};
`;
}
