import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { runProgramSync, type Program, type SqlStep, type StepResult } from "./program.ts";
import { sqliteDialect } from "./sqlite-dialect.ts";
import type { SqlValue } from "./sql-dialect.ts";
import { compileStatement, type RawRow, type StatementText } from "./statement.ts";

interface Prepared {
  readonly statement: StatementSync;
  /** Whether it returns rows (a SELECT, a `RETURNING`): read with `all`, else run for its changes. */
  readonly returnsRows: boolean;
}

const skipped: StepResult = { rows: [], changes: 0 };
/** Past this many texts (shapes of a filtered query, say), the rest are prepared on every use. */
const MAX_PREPARED = 1000;

/**
 * A value as node:sqlite binds it: booleans as 0/1, times as ISO 8601 text (what the columns
 * hold), a list as JSON text (read by `json_each`, see `SqlDialect.inList`).
 */
function bindable(value: SqlValue): SQLInputValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return JSON.stringify(value);
  return value as SQLInputValue;
}

/** The parameters as node:sqlite binds them; the same array when none needs converting (the usual case, on the hot path). */
function bindableParams(params: readonly SqlValue[]): readonly SQLInputValue[] {
  for (const value of params)
    if (typeof value === "boolean" || (typeof value === "object" && value !== null))
      return params.map((param) => bindable(param));
  return params as readonly SQLInputValue[];
}

/**
 * One `node:sqlite` connection running programs (program.ts): each statement is prepared once per
 * connection and kept, and a program runs whole, synchronously, so nothing else interleaves.
 * Transactions are the caller's (`inSqliteTransaction`, `SqliteGroupCommit`).
 */
export class SqliteConnection {
  readonly db: DatabaseSync;
  readonly #prepared = new Map<string, Prepared>();
  /** What each statement text runs as here (null: the dialect skips it), so a step costs one lookup. */
  readonly #byText = new Map<StatementText, Prepared | null>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** The prepared statement of a text, prepared on first use. */
  prepare(text: string): Prepared {
    let prepared = this.#prepared.get(text);
    if (prepared === undefined) {
      const statement = this.db.prepare(text);
      prepared = { statement, returnsRows: statement.columns().length > 0 };
      if (this.#prepared.size < MAX_PREPARED) this.#prepared.set(text, prepared);
    }
    return prepared;
  }

  /** Runs one step. */
  execute(step: SqlStep): StepResult {
    let prepared = this.#byText.get(step.text);
    if (prepared === undefined) {
      const compiled = compileStatement(step.text, sqliteDialect);
      prepared = compiled === null ? null : this.prepare(compiled.text);
      if (this.#byText.size < MAX_PREPARED) this.#byText.set(step.text, prepared);
    }
    if (prepared === null) return skipped;
    const { statement, returnsRows } = prepared;
    if (step.rows !== undefined) {
      let changes = 0;
      for (const row of step.rows) changes += Number(statement.run(...bindableParams(row)).changes);
      return { rows: [], changes };
    }
    const params = bindableParams(step.params);
    if (returnsRows) {
      const rows = statement.all(...params) as RawRow[];
      return { rows, changes: rows.length };
    }
    return { rows: [], changes: Number(statement.run(...params).changes) };
  }

  /** Runs `program` to its end, now. */
  run<T>(program: Program<T>): T {
    return runProgramSync(program, (step) => this.execute(step));
  }
}

/** Synchronous work as a promise: a throw becomes a rejection (a store's every failure is one, classified by `withStoreErrors`). */
export function promised<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
