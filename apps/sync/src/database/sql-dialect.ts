/*
 * What SQLite and PostgreSQL write differently, held in one object per dialect (kysely's
 * `Dialect`): placeholders, statement naming, column type names, locks, list parameters and the
 * capabilities a statement's text may depend on. Statements and programs ask the dialect object;
 * they never compare a dialect's name (a lint rule says so: `eslint.config.js`).
 */

/** The two SQL dialects the stores speak. */
export type DialectName = "sqlite" | "postgres";

/** A value a statement binds; a list is bound for {@link SqlDialect.inList}. */
export type SqlValue = string | number | boolean | Date | null | readonly (string | number | boolean | null)[];

/** A transaction-scoped advisory lock, taken by {@link SqlDialect.advisoryLocks}. */
export type AdvisoryLock =
  /** A lock of this schema named `name` (replicas sharing the schema compete for it). */
  | { readonly name: string; readonly shared?: boolean }
  /** A lock on the text bound at this place of the statement (a token, say). */
  | { readonly boundText: true; readonly shared?: boolean };

/** Column type names of one dialect, as the migrations write them. */
export interface ColumnTypes {
  /** A point in time (SQLite: ISO 8601 text, which sorts; PostgreSQL: timestamptz). */
  readonly time: string;
  /** A boolean (SQLite: 0/1). */
  readonly bool: string;
  /** A decimal number (money, rates). */
  readonly decimal: string;
  /** JSON kept as received (PostgreSQL's `json` keeps the bytes). */
  readonly json: string;
  /** A 64-bit integer. */
  readonly bigint: string;
  /** An integer primary key the database numbers. */
  readonly identity: string;
}

/**
 * The type of one column of a many-row write ({@link SqlDialect.rowsOf}), as the program binds
 * it, or a literal every row gets (`'live'`, `NULL`).
 */
export type RowColumn =
  | "bigint"
  | "integer"
  | "decimal"
  | "bool"
  | "text"
  /** Bound as its text; a `json` column on PostgreSQL. */
  | "json"
  /** Bound as ISO 8601 text. */
  | "time"
  | { readonly literal: string };

/** Everything the two dialects write differently. */
export interface SqlDialect {
  /** Which dialect: for logs, `kind` and the migrations' per-dialect texts; never compared in logic. */
  readonly name: DialectName;
  /** Column type names. */
  readonly types: ColumnTypes;
  /**
   * The text the driver runs for a statement written with `?` placeholders: unchanged on SQLite,
   * `$1 … $n` on PostgreSQL (a `?` inside a quoted literal or identifier is text, not a placeholder).
   */
  placeholders(sql: string): string;
  /**
   * The name under which a connection keeps a (placeholder-numbered) text prepared, so the server
   * parses and plans it once per connection; undefined where the driver prepares by text itself.
   */
  statementName(text: string): string | undefined;
  /**
   * A select list that takes `locks` until the transaction ends, in order; null where the write
   * transaction already excludes every other writer (SQLite: one writer per file), so a program
   * skips the statement.
   */
  advisoryLocks(locks: readonly AdvisoryLock[]): string | null;
  /**
   * A whole statement that takes, until the transaction ends, the lock {@link advisoryLocks}
   * takes for a `boundText`, for each text of one bound list, in one fixed order (by lock key,
   * whatever the list's order): two transactions locking overlapping lists wait for each other
   * instead of deadlocking. Null where the write transaction already excludes every other writer.
   */
  readonly advisoryLockEachText: string | null;
  /** The clause that locks the rows a SELECT reads until commit; null where writers never overlap (SQLite). */
  readonly lockRowsClause: string | null;
  /**
   * Whether an `INSERT … RETURNING` can feed further writes in one statement (`WITH … INSERT`):
   * then a program writes a row and its counts in one round trip.
   */
  readonly dataModifyingCte: boolean;
  /**
   * `column IN (…)` over one bound list (an array parameter): `= ANY(?::type[])` on PostgreSQL,
   * `json_each(?)` on SQLite (whose driver binds the array as JSON text).
   */
  inList(column: string, type: "bigint" | "text"): string;
  /**
   * The rows of a many-row write (`executeRows` in program.ts), as the source of an
   * `INSERT INTO table (columns) …`: `VALUES (?, …)` on SQLite, where the driver runs the
   * statement once per row (prepared once, and a statement costs no round trip); on PostgreSQL
   * `SELECT … FROM unnest(?::type[], …)`, where the driver binds each column of a chunk of rows as
   * one array: one round trip per chunk instead of one per row.
   */
  rowsOf(columns: readonly RowColumn[]): string;
  /** The epoch hour (UTC) of a time column, as an integer expression: the key of hourly counts. */
  hourOf(column: string): string;
  /** The epoch hour (UTC) of now, as an integer expression. */
  readonly currentHour: string;
}
