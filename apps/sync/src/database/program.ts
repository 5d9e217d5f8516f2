import { StoreError, SyncError } from "../common/errors.ts";
import type { SqlValue } from "./sql-dialect.ts";
import type { RawRow, Statement, StatementText } from "./statement.ts";

/*
 * Store logic is written once, as generator "programs" that yield statements and get their
 * results back; each driver runs them inside its own transaction. SQLite (node:sqlite is
 * synchronous) runs every step at once, so no other work interleaves while it holds the write
 * lock; PostgreSQL awaits each step on one pooled connection. What the dialects write
 * differently is in the dialect objects (sql-dialect.ts), never in a program.
 *
 * Why not kysely (0.29.9, measured on 2026-11-28 with the loop's entry write: a token lock, a
 * read, an insert and a count upsert per transaction, 16 at a time, on this machine under load):
 * its PostgreSQL dialect runs on `pg` but sends every statement unnamed (parsed and planned each
 * time): 483–630 entries/s against 761–764 with these programs' prepared statements. Its SQLite
 * dialect fits `node:sqlite` with a small adapter (`reader` from `columns()`), but runs each query
 * as a promise behind a mutex, so a write cannot join SqliteGroupCommit's synchronous group
 * (`synchronous = FULL` then costs one fsync per write): 162–301 entries/s against 1,902–3,280.
 */

/** One statement to run with its parameters: what a driver gets (the program decodes the rows). */
export interface SqlStep {
  readonly text: StatementText;
  readonly params: readonly SqlValue[];
  /**
   * The program yields nothing after this step when the dialect runs it: the statement is the
   * whole write, atomic by itself, so a driver may run it without BEGIN … COMMIT (two round trips
   * fewer on PostgreSQL). Where the dialect skips it (null text), the program goes on as usual.
   */
  readonly whole?: true;
  /**
   * The statement writes these rows, `params` being empty: its text takes one row's values
   * (`SqlDialect.rowsOf`). SQLite's driver runs it once per row; PostgreSQL's binds each column
   * of the rows as one array and runs it once. `changes` is the total.
   */
  readonly rows?: readonly (readonly SqlValue[])[];
}

/** What a driver gives back for a step: the rows it returned, undecoded, and the rows it changed. */
export interface StepResult {
  readonly rows: readonly RawRow[];
  readonly changes: number;
}

/** A piece of store logic: yields statements, receives each one's result, returns its own. */
export type Program<T> = Generator<SqlStep, T, StepResult>;

/** Runs `statement` and gives back its rows, decoded. */
export function* rows<Params extends readonly SqlValue[], Row>(
  statement: Statement<Params, Row>,
  ...params: Params
): Program<Row[]> {
  const result = yield { text: statement.text, params };
  return result.rows.map(statement.decode);
}

/** Runs `statement` and gives back its first row, decoded, if any. */
export function* first<Params extends readonly SqlValue[], Row>(
  statement: Statement<Params, Row>,
  ...params: Params
): Program<Row | undefined> {
  const result = yield { text: statement.text, params };
  const row = result.rows[0];
  return row === undefined ? undefined : statement.decode(row);
}

/** Runs `statement`, which must return a row (`INSERT … RETURNING`, a counter): no row is a StoreError, never a made-up record. */
export function* one<Params extends readonly SqlValue[], Row>(
  statement: Statement<Params, Row>,
  ...params: Params
): Program<Row> {
  const result = yield { text: statement.text, params };
  const row = result.rows[0];
  if (row === undefined) throw new StoreError("the store returned no row where one was expected");
  return statement.decode(row);
}

/** Runs `statement` for its effect and gives back how many rows it changed (0 when the dialect skips it). */
export function* execute<Params extends readonly SqlValue[]>(
  statement: Statement<Params, unknown>,
  ...params: Params
): Program<number> {
  return (yield { text: statement.text, params }).changes;
}

/** Rows per step of {@link executeRows}: enough to amortise PostgreSQL's round trips, few enough to keep each message modest. */
const ROWS_PER_STEP = 5000;

/**
 * Runs `statement`, a write of many rows whose source is `SqlDialect.rowsOf`, over `rows` (each
 * one row's values, in the order of its bound columns), a chunk at a time; how many rows it
 * changed. Nothing runs for no rows.
 */
export function* executeRows<Row extends readonly SqlValue[]>(
  statement: Statement<Row, never>,
  rows: readonly Readonly<Row>[],
): Program<number> {
  let changes = 0;
  for (let start = 0; start < rows.length; start += ROWS_PER_STEP) {
    const chunk = rows.length <= ROWS_PER_STEP ? rows : rows.slice(start, start + ROWS_PER_STEP);
    changes += (yield { text: statement.text, params: [], rows: chunk }).changes;
  }
  return changes;
}

/**
 * Runs `statement` as the program's whole write where the dialect runs it (see
 * {@link SqlStep.whole}): the program must return right after it. Its rows, decoded; none where
 * the dialect skips it, so a dialect-specific statement must always return a row where it runs.
 */
export function* whole<Params extends readonly SqlValue[], Row>(
  statement: Statement<Params, Row>,
  ...params: Params
): Program<Row[]> {
  const result = yield { text: statement.text, params, whole: true };
  return result.rows.map(statement.decode);
}

/**
 * Thrown by a write program that decides, after it wrote, that nothing it wrote should stay (a
 * check that comes last because its lock is taken last): the driver rolls the program's writes
 * back and the store's `write` resolves with `value`, the program's result. Never escapes a store.
 */
export class WriteRolledBack extends SyncError {
  override name = "WriteRolledBack" as const;
  readonly value: unknown;
  constructor(value: unknown) {
    super("a write program rolled its writes back");
    this.value = value;
  }
}

/**
 * Ends a write program with `value` as its result and nothing it wrote kept (see
 * {@link WriteRolledBack}). It never returns (it throws); it is typed as the result so that
 * `return rollBack(…)` checks the value against the program's result type.
 */
export function rollBack<T>(value: T): T {
  throw new WriteRolledBack(value);
}

/** Runs `program` to its end with a synchronous executor (SQLite). */
export function runProgramSync<T>(program: Program<T>, executeStep: (step: SqlStep) => StepResult): T {
  let next = program.next();
  while (!next.done) next = program.next(executeStep(next.value));
  return next.value;
}

/** Runs `program` to its end with an asynchronous executor (PostgreSQL). */
export function runProgram<T>(program: Program<T>, executeStep: (step: SqlStep) => Promise<StepResult>): Promise<T> {
  return resumeProgram(program, program.next(), executeStep);
}

/** Runs `program` on from `next`, what it yielded last (a driver that looked at its first step). */
export async function resumeProgram<T>(
  program: Program<T>,
  next: IteratorResult<SqlStep, T>,
  executeStep: (step: SqlStep) => Promise<StepResult>,
): Promise<T> {
  while (!next.done) next = program.next(await executeStep(next.value));
  return next.value;
}
