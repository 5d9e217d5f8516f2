import pg from "pg";

/** Statements already rewritten: a fixed set of literals, so the cache stays as small as the code. */
const rewritten = new Map<string, string>();

/**
 * Rewrites a statement written with `?` placeholders (the form node:sqlite takes, and the one
 * the statements both stores share are written in) into PostgreSQL's `$1 … $n`, in order. A `?`
 * inside a quoted literal or identifier is text, not a placeholder, and is left alone.
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

type TypeId = Parameters<typeof pg.types.getTypeParser>[0];
/** The type OID of `json`. */
const JSON_OID = 114;

/** The driver's parser of a type, but `json` columns arrive as their text, as node:sqlite returns them: one row mapper reads both. */
function jsonAsTextParser(oid: TypeId, format?: "text" | "binary"): unknown {
  // `TypeId` is an enum in pg-types' typings only: at run time an OID is a plain number.
  if ((oid as number) === JSON_OID) return (text: string) => text;
  const parser: unknown = pg.types.getTypeParser(oid, format);
  return parser;
}

const jsonAsText: pg.CustomTypesConfig = { getTypeParser: jsonAsTextParser };

/**
 * Runs one statement written with `?` placeholders (see {@link postgresPlaceholders}) on a pool
 * or a connection. Rows come as the driver gives them (bigint and numeric as strings,
 * timestamptz as a Date, boolean as a boolean), save `json`, which arrives as text.
 */
export function postgresQuery<Row extends pg.QueryResultRow = Record<string, unknown>>(
  queryable: pg.Pool | pg.ClientBase,
  sql: string,
  params: readonly unknown[] = [],
): Promise<pg.QueryResult<Row>> {
  return queryable.query<Row>({ text: postgresPlaceholders(sql), values: [...params], types: jsonAsText });
}
