import type { RowColumn, SqlDialect, SqlValue } from "./sql-dialect.ts";

/*
 * A statement knows its parameters and decodes its row once (kysely's sql<Row>`…`,
 * graphile-worker's one file per operation): programs get typed rows, never
 * `Record<string, unknown>` to convert at each use. Its text is written once with `?`
 * placeholders, or built from the dialect object where the dialects differ.
 */

/** A row as a driver returns it, before its statement decodes it. */
export type RawRow = Readonly<Record<string, unknown>>;

/**
 * A statement's text: one text for both dialects, or built from the dialect (null where the
 * dialect needs no such statement, such as a lock SQLite's one writer already holds: a program
 * running it gets no rows).
 */
export type StatementText = string | ((dialect: SqlDialect) => string | null);

/** One SQL statement: its text, the parameters it binds (`Params`) and the row it returns (`Row`). */
export interface Statement<Params extends readonly SqlValue[] = readonly SqlValue[], Row = RawRow> {
  readonly text: StatementText;
  /** Turns a driver's row into `Row`; throws a StoreError on a value the store should not hold. */
  readonly decode: (row: RawRow) => Row;
  /** Carries `Params` for the type checker only: never set. */
  readonly params?: Params;
}

/**
 * A statement that returns rows, decoded by `decode`.
 *
 * @example
 * ```ts
 * const latestSequence = statement<[], number>("SELECT value FROM counters WHERE name = 'changes'", (row) =>
 *   integer(row.value),
 * );
 * ```
 */
export function statement<Params extends readonly SqlValue[], Row>(
  text: StatementText,
  decode: (row: RawRow) => Row,
): Statement<Params, Row> {
  return { text, decode };
}

const noRow = (): never => {
  throw new TypeError("a command returns no rows to decode");
};

/** A statement run for its effect (an insert, update, delete or lock): a program gets the number of rows it changed. */
export function command<Params extends readonly SqlValue[]>(text: StatementText): Statement<Params, never> {
  return { text, decode: noRow };
}

/**
 * A many-row insert, run with `executeRows`: `INSERT INTO table (names)` from the dialect's rows of
 * `columns` (one statement per row on SQLite, arrays unnested on PostgreSQL), then `rest` (a
 * conflict clause).
 */
export function insertRows<Row extends readonly SqlValue[]>(
  table: string,
  columns: readonly (readonly [name: string, type: RowColumn])[],
  rest = "",
): Statement<Row, never> {
  return command<Row>(
    (dialect) =>
      `INSERT INTO ${table} (${columns.map(([name]) => name).join(", ")}) ${dialect.rowsOf(columns.map(([, type]) => type))} ${rest}`,
  );
}

/** What a statement's text is on one dialect, once: the text to run (placeholders numbered) and its prepared name. */
export interface CompiledStatement {
  readonly text: string;
  readonly name: string | undefined;
}

const compiled = new Map<SqlDialect, Map<StatementText, CompiledStatement | null>>();
/** Past this many texts per dialect (texts built per call), the rest are compiled each time. */
const MAX_COMPILED = 10_000;

/** The statement's text on `dialect` (null: the dialect skips it), compiled once per text. */
export function compileStatement(text: StatementText, dialect: SqlDialect): CompiledStatement | null {
  let cache = compiled.get(dialect);
  if (cache === undefined) compiled.set(dialect, (cache = new Map<StatementText, CompiledStatement | null>()));
  const known = cache.get(text);
  if (known !== undefined) return known;
  const source = typeof text === "string" ? text : text(dialect);
  let result: CompiledStatement | null = null;
  if (source !== null) {
    const runnable = dialect.placeholders(source);
    result = { text: runnable, name: dialect.statementName(runnable) };
  }
  if (cache.size < MAX_COMPILED) cache.set(text, result);
  return result;
}
