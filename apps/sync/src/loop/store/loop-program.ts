import { first, rows, type Program } from "../../database/program.ts";
import type { SqlValue } from "../../database/sql-dialect.ts";
import { statement, type RawRow } from "../../database/statement.ts";

/*
 * The loop's programs are written with the data layer of database/ (program.ts, statement.ts,
 * the dialect objects). This module keeps the earlier, untyped helpers so programs written
 * against them still compile; new statements are typed (`statement<Params, Row>(text, decode)`
 * with the decoders of columns.ts) and run with `rows`, `first`, `one` or `execute`.
 */

export { execute, first, one, rows, runProgram, runProgramSync } from "../../database/program.ts";
export type { Program, SqlStep, StepResult } from "../../database/program.ts";
export { command, statement } from "../../database/statement.ts";
export type { Statement } from "../../database/statement.ts";
export type { SqlValue } from "../../database/sql-dialect.ts";

/** A row as a driver returns it, undecoded. */
export type SqlRow = RawRow;

/** Untyped statements of {@link query}, one per text. */
const untyped = new Map<string, ReturnType<typeof untypedStatement>>();
const untypedStatement = (sql: string) => statement<SqlValue[], SqlRow>(sql, (row) => row);

function statementOf(sql: string) {
  let known = untyped.get(sql);
  if (known === undefined) {
    known = untypedStatement(sql);
    if (untyped.size < 10_000) untyped.set(sql, known);
  }
  return known;
}

/** Runs one statement (the same text on both dialects) and gives back every row it returns, undecoded. Prefer a typed `statement`. */
export function* query(sql: string, ...params: SqlValue[]): Program<SqlRow[]> {
  return yield* rows(statementOf(sql), ...params);
}

/** Runs one statement and gives back its first row, if any, undecoded. Prefer a typed `statement` and `first`. */
export function* queryOne(sql: string, ...params: SqlValue[]): Program<SqlRow | undefined> {
  return yield* first(statementOf(sql), ...params);
}
