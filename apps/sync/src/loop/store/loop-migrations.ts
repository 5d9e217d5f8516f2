import type { Migration, MigrationLedger } from "../../database/migration-ledger.ts";

type Dialect = "sqlite" | "postgres";

const types = {
  sqlite: { time: "TEXT", decimal: "REAL", bigint: "INTEGER" },
  postgres: { time: "timestamptz", decimal: "numeric", bigint: "bigint" },
} as const;

function loopSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE loop_entries (
  token TEXT PRIMARY KEY,
  survey_id ${t.bigint} NOT NULL,
  uid TEXT NOT NULL,
  cpi ${t.decimal} NOT NULL,
  issued_at ${t.time} NOT NULL,
  outcome TEXT,
  outcome_at ${t.time}
);
CREATE INDEX loop_entries_survey ON loop_entries (survey_id);

-- The outcome feed. Sequence numbers come from the counter row, taken (and locked) inside the
-- recording transaction, so they are gapless and in commit order: a reader following
-- ?after=N never skips a row that commits late.
CREATE TABLE loop_outcomes (
  sequence ${t.bigint} PRIMARY KEY,
  token TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('complete', 'terminate', 'overquota', 'security')),
  survey_id ${t.bigint},
  previous_outcome TEXT,
  received_at ${t.time} NOT NULL,
  UNIQUE (token, outcome)
);
CREATE TABLE loop_counters (
  name TEXT PRIMARY KEY,
  value ${t.bigint} NOT NULL
);
INSERT INTO loop_counters (name, value) VALUES ('outcomes', 0);
`;
}

const ENTRIES_BY_ISSUE_TIME = "CREATE INDEX loop_entries_issued ON loop_entries (issued_at);\n";

/**
 * Migrations of the respondent loop's tables (entries and outcomes), tracked in
 * `loop_schema_migrations` apart from the sync store's list: on SQLite these tables live in
 * their own file (see `openSqliteOutcomeStore`). Append new versions; never edit an applied one.
 */
export const outcomeMigrations: readonly Migration[] = [
  { version: 1, name: "entries and outcomes", sqlite: loopSchema("sqlite"), postgres: loopSchema("postgres") },
  // Retention (SYNC_OUTCOME_RETENTION_SECONDS) looks for the oldest entries; outcomes go by sequence.
  { version: 2, name: "entries by issue time", sqlite: ENTRIES_BY_ISSUE_TIME, postgres: ENTRIES_BY_ISSUE_TIME },
];

/** The loop tables' ledger: versions of their own, recorded apart from the sync tables'. */
export const outcomeLedger: MigrationLedger = { table: "loop_schema_migrations", lockName: "loop-migrations", migrations: outcomeMigrations };
