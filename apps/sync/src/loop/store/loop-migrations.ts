import { dialects } from "../../database/dialects.ts";
import type { Dialect, Migration, MigrationLedger } from "../../database/migration-ledger.ts";
import type { ColumnTypes } from "../../database/sql-dialect.ts";
import { gateSchema } from "./gate-schema.ts";
import { moneyRepair } from "./money-repair.ts";
import { questionSchema, sessionSchema, startLinkSchema } from "./session-schema.ts";

/** The column type names of each dialect (its dialect object's). */
const types: Readonly<Record<Dialect, ColumnTypes>> = {
  sqlite: dialects.sqlite.types,
  postgres: dialects.postgres.types,
};

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

/*
 * Version 3: the history of an entry is its transitions, and conversion is counted as it is
 * recorded. The (token, outcome) uniqueness goes (it could not tell a late duplicate from a real
 * return to an earlier outcome: complete, terminate, complete lost its last step); a repeat of
 * the CURRENT outcome records nothing instead. Orphans (outcomes for tokens never issued) are
 * kept apart until their entry is issued. Counts per survey, lifetime and per hour (epoch hour),
 * are backfilled once here and maintained in the recording transaction from then on.
 */
const COUNT_COLUMNS = (t: ColumnTypes) => `
  entries ${t.bigint} NOT NULL DEFAULT 0,
  completes ${t.bigint} NOT NULL DEFAULT 0,
  terminates ${t.bigint} NOT NULL DEFAULT 0,
  overquotas ${t.bigint} NOT NULL DEFAULT 0,
  security ${t.bigint} NOT NULL DEFAULT 0,
  reversals ${t.bigint} NOT NULL DEFAULT 0,
  earnings ${t.decimal} NOT NULL DEFAULT 0`;

function transitionsSchema(dialect: Dialect): string {
  const t = types[dialect];
  const hourOf = (column: string) => dialects[dialect].hourOf(column);
  // SQLite cannot drop a table constraint: the table is rebuilt.
  const outcomeTable = {
    sqlite: `
CREATE TABLE loop_outcomes_v3 (
  sequence INTEGER PRIMARY KEY,
  token TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('complete', 'terminate', 'overquota', 'security')),
  survey_id INTEGER,
  previous_outcome TEXT,
  received_at TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 's2s',
  reason TEXT
);
INSERT INTO loop_outcomes_v3 (sequence, token, outcome, survey_id, previous_outcome, received_at) SELECT sequence, token, outcome, survey_id, previous_outcome, received_at FROM loop_outcomes;
DROP TABLE loop_outcomes;
ALTER TABLE loop_outcomes_v3 RENAME TO loop_outcomes;`,
    postgres: `
ALTER TABLE loop_outcomes DROP CONSTRAINT IF EXISTS loop_outcomes_token_outcome_key;
ALTER TABLE loop_outcomes ADD COLUMN source TEXT NOT NULL DEFAULT 's2s';
ALTER TABLE loop_outcomes ADD COLUMN reason TEXT;`,
  }[dialect];
  return `${outcomeTable}
CREATE INDEX loop_outcomes_token ON loop_outcomes (token, sequence);
ALTER TABLE loop_entries ADD COLUMN source TEXT NOT NULL DEFAULT 'link';
CREATE INDEX loop_entries_uid ON loop_entries (uid, issued_at);
CREATE TABLE loop_orphans (
  token TEXT PRIMARY KEY,
  outcome TEXT NOT NULL,
  received_at ${t.time} NOT NULL
);
INSERT INTO loop_orphans (token, outcome, received_at)
  SELECT o.token, o.outcome, o.received_at FROM loop_outcomes o
  WHERE o.survey_id IS NULL AND NOT EXISTS (SELECT 1 FROM loop_entries e WHERE e.token = o.token)
    AND o.sequence = (SELECT MAX(sequence) FROM loop_outcomes l WHERE l.token = o.token);
-- Taken (upserted) by every entry of a respondent before the history is read: entries of one
-- respondent are decided one at a time, on every replica.
CREATE TABLE loop_respondents (uid TEXT PRIMARY KEY);
CREATE TABLE loop_survey_counts (
  survey_id ${t.bigint} PRIMARY KEY,${COUNT_COLUMNS(t)}
);
CREATE TABLE loop_survey_hours (
  survey_id ${t.bigint} NOT NULL,
  hour ${t.bigint} NOT NULL,${COUNT_COLUMNS(t)},
  PRIMARY KEY (survey_id, hour)
);
CREATE INDEX loop_survey_hours_hour ON loop_survey_hours (hour);
INSERT INTO loop_survey_counts (survey_id, entries, completes, terminates, overquotas, security, earnings)
  SELECT survey_id, COUNT(*),
    SUM(CASE WHEN outcome = 'complete' THEN 1 ELSE 0 END), SUM(CASE WHEN outcome = 'terminate' THEN 1 ELSE 0 END),
    SUM(CASE WHEN outcome = 'overquota' THEN 1 ELSE 0 END), SUM(CASE WHEN outcome = 'security' THEN 1 ELSE 0 END),
    COALESCE(SUM(CASE WHEN outcome = 'complete' THEN cpi ELSE 0 END), 0)
  FROM loop_entries GROUP BY survey_id;
INSERT INTO loop_survey_hours (survey_id, hour, entries)
  SELECT survey_id, ${hourOf("issued_at")}, COUNT(*) FROM loop_entries GROUP BY survey_id, ${hourOf("issued_at")};
INSERT INTO loop_survey_hours (survey_id, hour, completes, terminates, overquotas, security, earnings)
  SELECT survey_id, ${hourOf("outcome_at")},
    SUM(CASE WHEN outcome = 'complete' THEN 1 ELSE 0 END), SUM(CASE WHEN outcome = 'terminate' THEN 1 ELSE 0 END),
    SUM(CASE WHEN outcome = 'overquota' THEN 1 ELSE 0 END), SUM(CASE WHEN outcome = 'security' THEN 1 ELSE 0 END),
    COALESCE(SUM(CASE WHEN outcome = 'complete' THEN cpi ELSE 0 END), 0)
  FROM loop_entries WHERE outcome IS NOT NULL GROUP BY survey_id, ${hourOf("outcome_at")}
  ON CONFLICT (survey_id, hour) DO UPDATE SET completes = excluded.completes, terminates = excluded.terminates,
    overquotas = excluded.overquotas, security = excluded.security, earnings = excluded.earnings;
INSERT INTO loop_counters (name, value) SELECT 'outcome:' || outcome, COUNT(*) FROM loop_outcomes GROUP BY outcome;
INSERT INTO loop_counters (name, value) VALUES ('orphans', (SELECT COUNT(*) FROM loop_orphans));
`;
}

/*
 * Version 4: what respondent-aware routing and yield ranking read about each live survey, fetched
 * by the leader from operations the spec names but does not show (Get Survey Groups, Get
 * ReContact Respondents, Get Survey Stats) and shared by every replica through the store. Each
 * fetch's outcome is kept (`ok`, `missing` for a 404, `unreadable` for a body no parser reads),
 * so a wrong guess of a path is visible rather than silent. The counts learn when a survey last
 * got an outcome and when it last reached the yield cut-off (N decided entries, no complete).
 */
function routingDataSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE loop_survey_groups (
  survey_id ${t.bigint} NOT NULL,
  group_id ${t.bigint} NOT NULL,
  PRIMARY KEY (survey_id, group_id)
);
CREATE INDEX loop_survey_groups_group ON loop_survey_groups (group_id);
CREATE TABLE loop_recontact_respondents (
  survey_id ${t.bigint} NOT NULL,
  uid TEXT NOT NULL,
  active ${t.bigint} NOT NULL,
  PRIMARY KEY (survey_id, uid)
);
CREATE TABLE loop_routing_fetches (
  survey_id ${t.bigint} NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('groups', 'recontact', 'stats')),
  status TEXT NOT NULL CHECK (status IN ('ok', 'missing', 'unreadable')),
  problem TEXT,
  fetched_at ${t.time} NOT NULL,
  PRIMARY KEY (survey_id, kind)
);
CREATE TABLE loop_survey_stats (
  survey_id ${t.bigint} PRIMARY KEY,
  conversion ${t.decimal},
  effective_epc ${t.decimal},
  length_of_interview ${t.decimal},
  scope TEXT NOT NULL
);
ALTER TABLE loop_survey_counts ADD COLUMN last_outcome_at ${t.bigint};
ALTER TABLE loop_survey_counts ADD COLUMN cutoff_reached_at ${t.bigint};
`;
}

/*
 * Version 5: the windows' totals per survey, kept as counts are recorded (and as hours leave
 * a window), so the status reads one row per survey and window instead of summing up to 168
 * hourly rows per survey. `window-edge:<window>` is the last hour already taken out of it.
 */
function windowTotalsSchema(dialect: Dialect): string {
  const t = types[dialect];
  const currentHour = dialects[dialect].currentHour;
  const backfill = (window: string, hours: number) => `
INSERT INTO loop_counters (name, value) VALUES ('window-edge:${window}', ${currentHour} - ${hours});
INSERT INTO loop_survey_windows (survey_id, window_name, entries, completes, terminates, overquotas, security, reversals, earnings)
  SELECT survey_id, '${window}', SUM(entries), SUM(completes), SUM(terminates), SUM(overquotas), SUM(security), SUM(reversals), SUM(earnings)
  FROM loop_survey_hours WHERE hour > (SELECT value FROM loop_counters WHERE name = 'window-edge:${window}') GROUP BY survey_id;`;
  return `
CREATE TABLE loop_survey_windows (
  survey_id ${t.bigint} NOT NULL,
  window_name TEXT NOT NULL CHECK (window_name IN ('last24h', 'last7d')),${COUNT_COLUMNS(t)},
  PRIMARY KEY (survey_id, window_name)
);${backfill("last24h", 24)}${backfill("last7d", 168)}
`;
}

/*
 * Version 6: where each sink of events out (NATS, each webhook) stands in each feed, so a new
 * leader's relay continues where the old one stopped. Kept beside the outcome feed (on SQLite in
 * the loop's own file, which a sync cycle never holds), for the change feed's positions too.
 */
function eventPositionsSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE event_positions (
  sink TEXT NOT NULL,
  feed TEXT NOT NULL CHECK (feed IN ('outcomes', 'changes')),
  position ${t.bigint} NOT NULL,
  updated_at ${t.time} NOT NULL,
  failing_since ${t.time},
  last_error TEXT,
  PRIMARY KEY (sink, feed)
);
`;
}

/*
 * Version 9 (6 to 8 are other features'): money in integer micros (millionths of the currency),
 * so sums are exact on SQLite's REAL columns as on PostgreSQL's numeric (loop/money.ts). The
 * columns are renamed with their unit, so a statement still reading the old unit fails loudly.
 */
const MONEY_COLUMNS = [
  ["loop_entries", "cpi", "cpi_micros"],
  ["loop_survey_counts", "earnings", "earnings_micros"],
  ["loop_survey_hours", "earnings", "earnings_micros"],
  ["loop_survey_windows", "earnings", "earnings_micros"],
] as const;
const MONEY_IN_MICROS = MONEY_COLUMNS.map(
  ([table, column, renamed]) =>
    `UPDATE ${table} SET ${column} = ROUND(${column} * 1000000);\nALTER TABLE ${table} RENAME COLUMN ${column} TO ${renamed};\n`,
).join("");

/*
 * Version 12: rules that read every entry of a respondent (respondent-history.ts: one row per
 * survey and outcome, from this index alone; it replaces the index by uid and time, which only the
 * latest-N read used) and the entry link as issued (a retry answers it, not a link built again
 * from a SurveyUrl that changed).
 */
const RESPONDENT_HISTORY_AND_LINKS = `
CREATE INDEX loop_entries_respondent_surveys ON loop_entries (uid, survey_id, outcome, issued_at);
DROP INDEX IF EXISTS loop_entries_uid;
ALTER TABLE loop_entries ADD COLUMN link TEXT;
`;

/**
 * Migrations of the respondent loop's tables (entries and outcomes), tracked in
 * `loop_schema_migrations` apart from the sync store's list: on SQLite these tables live in
 * their own file (see `openSqliteLoopStore`). Append new versions; never edit an applied one.
 */
export const outcomeMigrations: readonly Migration[] = [
  { version: 1, name: "entries and outcomes", sqlite: loopSchema("sqlite"), postgres: loopSchema("postgres") },
  // Retention (SYNC_OUTCOME_RETENTION_SECONDS) looks for the oldest entries; outcomes go by sequence.
  { version: 2, name: "entries by issue time", sqlite: ENTRIES_BY_ISSUE_TIME, postgres: ENTRIES_BY_ISSUE_TIME },
  {
    version: 3,
    name: "transitions, orphans, respondents and conversion counts",
    sqlite: transitionsSchema("sqlite"),
    postgres: transitionsSchema("postgres"),
  },
  {
    version: 4,
    name: "survey groups, re-contact lists, survey stats and yield cut-off times",
    sqlite: routingDataSchema("sqlite"),
    postgres: routingDataSchema("postgres"),
  },
  {
    version: 5,
    name: "window totals per survey",
    sqlite: windowTotalsSchema("sqlite"),
    postgres: windowTotalsSchema("postgres"),
  },
  {
    version: 6,
    name: "event positions of the relay",
    sqlite: eventPositionsSchema("sqlite"),
    postgres: eventPositionsSchema("postgres"),
  },
  // Versions 7 and 8: the respondent's session (session-schema.ts; its room is src/session).
  {
    version: 7,
    name: "sessions, attempts, profiles and answer counts",
    sqlite: sessionSchema("sqlite"),
    postgres: sessionSchema("postgres"),
  },
  {
    version: 8,
    name: "the question catalogue",
    sqlite: questionSchema("sqlite"),
    postgres: questionSchema("postgres"),
  },
  { version: 9, name: "money in integer micros", sqlite: MONEY_IN_MICROS, postgres: MONEY_IN_MICROS },
  // Version 10: the quality gate (gate-schema.ts; its room is src/gate).
  {
    version: 10,
    name: "the quality gate: starts, devices, speeders and respondents' risk",
    sqlite: gateSchema("sqlite"),
    postgres: gateSchema("postgres"),
  },
  // Version 11: the respondent page's start links (session-schema.ts; its room is src/page).
  {
    version: 11,
    name: "start links of the respondent page",
    sqlite: startLinkSchema("sqlite"),
    postgres: startLinkSchema("postgres"),
  },
  // Version 12: the respondent's history read whole (by survey and outcome), and the links as issued.
  {
    version: 12,
    name: "respondent history by survey and outcome, and the links issued",
    sqlite: RESPONDENT_HISTORY_AND_LINKS,
    postgres: RESPONDENT_HISTORY_AND_LINKS,
  },
  // Version 13: the Idempotency-Key of each batch request (reconciliation), with its answer.
  {
    version: 13,
    name: "idempotency keys of batch requests",
    sqlite: idempotencyKeysSchema("sqlite"),
    postgres: idempotencyKeysSchema("postgres"),
  },
  // Version 14: money stored as NaN or Infinity before the Cpi was checked, kept aside and recounted (money-repair.ts).
  {
    version: 14,
    name: "money stored as NaN or Infinity repaired",
    sqlite: moneyRepair("sqlite"),
    postgres: moneyRepair("postgres"),
  },
];

/*
 * Version 13: the Idempotency-Key of each batch request recorded (reconciliation), with the
 * fingerprint of its body and its answer, kept 7 days by default (idempotency-records.ts): a repeat answers
 * the stored answer instead of applying the batch again.
 */
function idempotencyKeysSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE loop_idempotency_keys (
  scope TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  answer ${t.json} NOT NULL,
  created_at ${t.time} NOT NULL,
  PRIMARY KEY (scope, idempotency_key)
);
CREATE INDEX loop_idempotency_keys_created ON loop_idempotency_keys (created_at);
`;
}

/** The loop tables' ledger: versions of their own, recorded apart from the sync tables'. */
export const outcomeLedger: MigrationLedger = {
  table: "loop_schema_migrations",
  lockName: "loop-migrations",
  migrations: outcomeMigrations,
};
