/*
 * The loop store's logic is written once, as generator "programs" that yield SQL steps and get
 * rows back; each driver runs them inside its own transaction. SQLite (node:sqlite is
 * synchronous) runs every step at once inside BEGIN IMMEDIATE, so no other work interleaves
 * while it holds the write lock; PostgreSQL awaits each step on one pooled connection. Only the
 * transaction and the few statements the dialects disagree on stay per driver.
 */

/** A value a statement takes. */
export type SqlValue = string | number | null;

/** A row as either driver returns it: PostgreSQL gives bigint and numeric as text and timestamptz as Date. */
export type SqlRow = Readonly<Record<string, unknown>>;

/** One statement to run, with `?` placeholders (the PostgreSQL driver numbers them). */
export interface SqlStep {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/** A piece of store logic: yields statements, receives each one's rows, returns its result. */
export type Program<T> = Generator<SqlStep, T, SqlRow[]>;

/** Runs one statement and gives back every row it returns. */
export function* query(sql: string, ...params: SqlValue[]): Program<SqlRow[]> {
  return yield { sql, params };
}

/** Runs one statement and gives back its first row, if any. */
export function* queryOne(sql: string, ...params: SqlValue[]): Program<SqlRow | undefined> {
  const rows = yield { sql, params };
  return rows[0];
}

/** Runs `program` to its end with a synchronous executor (SQLite). */
export function runProgramSync<T>(program: Program<T>, execute: (step: SqlStep) => SqlRow[]): T {
  let next = program.next();
  while (!next.done) next = program.next(execute(next.value));
  return next.value;
}

/** Runs `program` to its end with an asynchronous executor (PostgreSQL). */
export async function runProgram<T>(program: Program<T>, execute: (step: SqlStep) => Promise<SqlRow[]>): Promise<T> {
  let next = program.next();
  while (!next.done) next = program.next(await execute(next.value));
  return next.value;
}
