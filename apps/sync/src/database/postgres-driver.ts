import pg from "pg";
import { postgresDialect } from "./postgres-dialect.ts";
import { StoreError } from "../common/errors.ts";
import { resumeProgram, runProgram, type Program, type SqlStep, type StepResult } from "./program.ts";
import type { SqlValue } from "./sql-dialect.ts";
import { compileStatement, type RawRow } from "./statement.ts";

type TypeId = Parameters<typeof pg.types.getTypeParser>[0];
/** The type OID of `json`. */
const JSON_OID = 114;

/** The driver's parser of a type, but `json` columns arrive as their text, as node:sqlite returns them: one decoder reads both. */
function jsonAsTextParser(oid: TypeId, format?: "text" | "binary"): unknown {
  // `TypeId` is an enum in pg-types' typings only: at run time an OID is a plain number.
  if ((oid as number) === JSON_OID) return (text: string) => text;
  const parser: unknown = pg.types.getTypeParser(oid, format);
  return parser;
}

const jsonAsText: pg.CustomTypesConfig = { getTypeParser: jsonAsTextParser };

const skipped: StepResult = { rows: [], changes: 0 };

/** A many-row step's values as PostgreSQL binds them (`SqlDialect.rowsOf`): one array per column. */
function columnsOf(rows: readonly (readonly SqlValue[])[]): SqlValue[][] {
  const columns: SqlValue[][] = (rows[0] ?? []).map(() => []);
  for (const row of rows) row.forEach((value, index) => columns[index]?.push(value));
  return columns;
}

/**
 * Runs one step on a pool or a connection: the one way any statement reaches PostgreSQL. The
 * text is compiled once (placeholders numbered) and run as a named prepared statement (parsed and
 * planned once per connection). Rows come as the driver gives them (bigint and numeric as
 * strings, timestamptz as a Date), save `json`, which arrives as text; the statement decodes them.
 */
export async function executeOnPostgres(queryable: pg.Pool | pg.ClientBase, step: SqlStep): Promise<StepResult> {
  const compiled = compileStatement(step.text, postgresDialect);
  if (compiled === null) return skipped;
  const result = await queryable.query<RawRow>({
    name: compiled.name,
    text: compiled.text,
    values: step.rows === undefined ? [...step.params] : columnsOf(step.rows),
    types: jsonAsText,
  });
  return { rows: result.rows, changes: result.rowCount ?? 0 };
}

/** Runs `program` on a pool (each statement on whichever connection is free: reads) or on one connection. */
export function runOnPostgres<T>(queryable: pg.Pool | pg.ClientBase, program: Program<T>): Promise<T> {
  return runProgram(program, (step) => executeOnPostgres(queryable, step));
}

/**
 * Runs `work` on one pooled connection inside BEGIN … COMMIT, rolled back when it throws, and
 * rethrows what failed as it was: the store's `withStoreErrors` wrapper (store-errors.ts)
 * classifies it.
 */
export async function inPostgresTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Runs `program` in one transaction on one pooled connection: durable when it resolves. A program
 * whose first step is its whole write ({@link SqlStep.whole}) runs that one statement on the pool
 * instead, atomic by itself: one round trip where BEGIN and COMMIT would make three.
 */
export async function runPostgresTransaction<T>(pool: pg.Pool, program: Program<T>): Promise<T> {
  const first = program.next();
  if (first.done) return first.value;
  if (first.value.whole === true && compileStatement(first.value.text, postgresDialect) !== null) {
    const after = program.next(await executeOnPostgres(pool, first.value));
    if (!after.done) throw new StoreError("a program went on after the statement it said was its whole write");
    return after.value;
  }
  return inPostgresTransaction(pool, (client) =>
    resumeProgram(program, first, (step) => executeOnPostgres(client, step)),
  );
}
