import type { SqlDialect } from "./sql-dialect.ts";

/**
 * SQLite through `node:sqlite`: one writer per file (a write transaction is `BEGIN IMMEDIATE`,
 * so no lock statement is needed), statements prepared by text, no data-modifying CTE.
 */
export const sqliteDialect: SqlDialect = {
  name: "sqlite",
  types: {
    time: "TEXT",
    bool: "INTEGER",
    decimal: "REAL",
    json: "TEXT",
    bigint: "INTEGER",
    identity: "INTEGER PRIMARY KEY AUTOINCREMENT",
  },
  placeholders: (sql) => sql,
  statementName: () => undefined,
  advisoryLocks: () => null,
  advisoryLockEachText: null,
  lockRowsClause: null,
  dataModifyingCte: false,
  rowsOf: (columns) =>
    `VALUES (${columns.map((column) => (typeof column === "string" ? "?" : column.literal)).join(", ")})`,
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  hourOf: (column) => `CAST(strftime('%s', ${column}) AS INTEGER) / 3600`,
  currentHour: "(CAST(strftime('%s', 'now') AS INTEGER) / 3600)",
};
