import type { AdvisoryLock, RowColumn, SqlDialect } from "./sql-dialect.ts";

/** Statements already rewritten: a fixed set of literals, so the cache stays as small as the code. */
const rewritten = new Map<string, string>();

/**
 * Rewrites a statement written with `?` placeholders (the form node:sqlite takes, and the one
 * every statement is written in) into PostgreSQL's `$1 … $n`, in order. A `?` inside a quoted
 * literal or identifier is text, not a placeholder, and is left alone.
 *
 * @example
 * ```ts
 * postgresPlaceholders("SELECT * FROM changes WHERE sequence > ? LIMIT ?"); // "… sequence > $1 LIMIT $2"
 * ```
 */
export function postgresPlaceholders(sql: string): string {
  const known = rewritten.get(sql);
  if (known !== undefined) return known;
  const result = numberPlaceholders(sql);
  if (rewritten.size < 10_000) rewritten.set(sql, result);
  return result;
}

function numberPlaceholders(sql: string): string {
  let converted = "";
  let quote: string | undefined;
  let index = 0;
  for (const char of sql) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      converted += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      converted += char;
    } else if (char === "?") {
      index += 1;
      converted += `$${index}`;
    } else {
      converted += char;
    }
  }
  return converted;
}

/** Names given to statements so far (see {@link preparedStatementName}). */
const statementNames = new Map<string, string>();
/** Past this many distinct statements (texts built per call, say), the rest run unnamed. */
const MAX_NAMED_STATEMENTS = 1000;

/**
 * The name under which a connection keeps `text` prepared: the server parses and plans a named
 * statement once per connection instead of on every call, which on the loop's short, hot
 * transactions is a large part of the work. One name per text, for the process's lifetime
 * (node-postgres refuses one name for two texts); undefined once the table is full.
 */
export function preparedStatementName(text: string): string | undefined {
  const known = statementNames.get(text);
  if (known !== undefined || statementNames.size >= MAX_NAMED_STATEMENTS) return known;
  const name = `sds_${statementNames.size + 1}`;
  statementNames.set(text, name);
  return name;
}

/** First half of the two-key advisory locks of a schema ("SDS" in ASCII, as in advisory-lock.ts). */
const SDS_LOCK_CLASS = 5456979;

/** The one-key advisory lock of a text (a token): the text hashed to a bigint. */
const textLockKey = (text: string) => `hashtextextended(${text}, 7)`;

/** The key of one advisory lock: a bound text hashed to a bigint, or this schema's lock of a name. */
function lockKey(lock: AdvisoryLock): string {
  return "boundText" in lock ? textLockKey("?") : `${SDS_LOCK_CLASS}, hashtext(current_schema() || ':${lock.name}')`;
}

/** The array type each bound column of a many-row write arrives as. */
const arrayTypes = {
  bigint: "bigint",
  integer: "int",
  decimal: "numeric",
  bool: "boolean",
  text: "text",
  json: "text",
  time: "timestamptz",
} as const;

/** A many-row write's source on PostgreSQL: each bound column one array, unnested in step (see `SqlDialect.rowsOf`). */
function unnestRows(columns: readonly RowColumn[]): string {
  const bound: string[] = [];
  const selected = columns.map((column) => {
    if (typeof column !== "string") return column.literal;
    const name = `c${bound.length + 1}`;
    bound.push(`?::${arrayTypes[column]}[]`);
    return column === "json" ? `u.${name}::json` : `u.${name}`;
  });
  const names = bound.map((_, index) => `c${index + 1}`);
  return `SELECT ${selected.join(", ")} FROM unnest(${bound.join(", ")}) AS u(${names.join(", ")})`;
}

/** PostgreSQL through node-postgres: concurrent writers (replicas), so programs lock; one statement can write several tables. */
export const postgresDialect: SqlDialect = {
  name: "postgres",
  types: {
    time: "timestamptz",
    bool: "boolean",
    decimal: "numeric",
    json: "json",
    bigint: "bigint",
    identity: "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
  },
  placeholders: postgresPlaceholders,
  statementName: preparedStatementName,
  advisoryLocks: (locks) =>
    locks
      .map(
        (lock) =>
          `${lock.shared === true ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"}(${lockKey(lock)})`,
      )
      .join(", "),
  // The subquery's order is the order the outer scan calls the lock function in.
  advisoryLockEachText: `SELECT pg_advisory_xact_lock(key) FROM (SELECT DISTINCT ${textLockKey("text")} AS key FROM unnest(?::text[]) AS list (text) ORDER BY key) AS keys`,
  lockRowsClause: "FOR UPDATE",
  dataModifyingCte: true,
  rowsOf: unnestRows,
  inList: (column, type) => `${column} = ANY(?::${type}[])`,
  hourOf: (column) => `floor(extract(epoch from ${column}) / 3600)::bigint`,
  currentHour: "(floor(extract(epoch from now()) / 3600)::bigint)",
};
