import { dialects } from "../database/dialects.ts";
import type { Dialect, Migration, MigrationLedger } from "../database/migration-ledger.ts";
import type { ColumnTypes } from "../database/sql-dialect.ts";

/**
 * Versioned schema migrations, one list for both stores. Each store applies, at open and in
 * one transaction per migration, every version above the highest one recorded in
 * `schema_migrations`. Append new versions; never edit an applied one.
 *
 * Type differences are the only thing the two dialects disagree on here: SQLite keeps times
 * as ISO 8601 text (which sorts correctly) and booleans as 0/1; PostgreSQL has timestamptz,
 * boolean and numeric. Raw upstream records are kept as text (`json` in PostgreSQL, which
 * preserves the bytes) so a survey reads back exactly as it was received.
 */
const types: Readonly<Record<Dialect, ColumnTypes>> = {
  sqlite: dialects.sqlite.types,
  postgres: dialects.postgres.types,
};

function initialSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE surveys (
  id ${t.bigint} PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('live', 'closed')),
  closed_at ${t.time},
  first_seen_at ${t.time} NOT NULL,
  changed_at ${t.time} NOT NULL,
  language_id INTEGER NOT NULL,
  cpi ${t.decimal} NOT NULL,
  loi ${t.decimal} NOT NULL,
  ir ${t.decimal} NOT NULL,
  desktop_allowed ${t.bool} NOT NULL,
  mobile_allowed ${t.bool} NOT NULL,
  tablet_allowed ${t.bool} NOT NULL,
  last_updated TEXT NOT NULL,
  qual_updated TEXT NOT NULL,
  quota_updated TEXT NOT NULL,
  qualifications_marker TEXT,
  quotas_marker TEXT,
  quota_count INTEGER NOT NULL DEFAULT 0,
  needs_refetch ${t.bool} NOT NULL,
  raw_hash TEXT NOT NULL,
  record_hash TEXT NOT NULL,
  raw ${t.json} NOT NULL
);
CREATE INDEX surveys_status_id ON surveys (status, id);
CREATE INDEX surveys_language ON surveys (language_id);
CREATE INDEX surveys_cpi ON surveys (cpi);
CREATE INDEX surveys_changed_at ON surveys (changed_at);

CREATE TABLE qualifications (
  survey_id ${t.bigint} NOT NULL,
  position INTEGER NOT NULL,
  qualification_id INTEGER,
  qualification_type_id INTEGER,
  raw ${t.json} NOT NULL,
  PRIMARY KEY (survey_id, position)
);
CREATE INDEX qualifications_qualification ON qualifications (qualification_id);

CREATE TABLE quotas (
  survey_id ${t.bigint} NOT NULL,
  position INTEGER NOT NULL,
  quota_id ${t.bigint},
  raw ${t.json} NOT NULL,
  PRIMARY KEY (survey_id, position)
);

CREATE TABLE collections (
  name TEXT PRIMARY KEY,
  fetched_at ${t.time} NOT NULL,
  body ${t.json} NOT NULL
);

CREATE TABLE runs (
  id ${t.identity},
  replica_id TEXT NOT NULL,
  run_trigger TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed')),
  started_at ${t.time} NOT NULL,
  finished_at ${t.time} NOT NULL,
  duration_ms INTEGER NOT NULL,
  counts ${t.json} NOT NULL,
  error TEXT,
  first_sequence ${t.bigint},
  last_sequence ${t.bigint}
);
CREATE INDEX runs_status_id ON runs (status, id);

-- The change feed. Sequence numbers come from the counter row below, taken inside the cycle's
-- transaction, so a rolled-back cycle leaves no gap (a SERIAL would).
CREATE TABLE changes (
  sequence ${t.bigint} PRIMARY KEY,
  run_id ${t.bigint} NOT NULL,
  type TEXT NOT NULL,
  survey_id ${t.bigint} NOT NULL,
  occurred_at ${t.time} NOT NULL
);
CREATE TABLE counters (
  name TEXT PRIMARY KEY,
  value ${t.bigint} NOT NULL
);
INSERT INTO counters (name, value) VALUES ('changes', 0);

CREATE TABLE quarantine (
  key TEXT PRIMARY KEY,
  survey_id ${t.bigint},
  source TEXT NOT NULL,
  first_seen_at ${t.time} NOT NULL,
  last_seen_at ${t.time} NOT NULL,
  times_seen INTEGER NOT NULL,
  last_run_id ${t.bigint},
  item TEXT NOT NULL,
  issues ${t.json} NOT NULL
);
`;
}

/**
 * Quarantine reflects the present: an entry is resolved (kept as history, with the time) once the
 * upstream sends what it stood for in good shape again, or stops sending it.
 */
function quarantineResolution(dialect: Dialect): string {
  return `
ALTER TABLE quarantine ADD COLUMN resolved_at ${types[dialect].time};
CREATE INDEX quarantine_unresolved ON quarantine (resolved_at, last_seen_at);
`;
}

/** Every migration, in order. */
export const migrations: readonly Migration[] = [
  { version: 1, name: "initial schema", sqlite: initialSchema("sqlite"), postgres: initialSchema("postgres") },
  {
    version: 2,
    name: "quarantine resolution",
    sqlite: quarantineResolution("sqlite"),
    postgres: quarantineResolution("postgres"),
  },
];

/** The newest schema version this build knows. */
export const latestSchemaVersion = Math.max(...migrations.map((migration) => migration.version));

/** The sync store's ledger. */
export const syncLedger: MigrationLedger = { table: "schema_migrations", lockName: "migrations", migrations };
