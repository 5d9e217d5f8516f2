import { dialects } from "../../database/dialects.ts";
import type { Dialect } from "../../database/migration-ledger.ts";

/*
 * The quality gate's tables, in the loop store (every replica counts alike: a start refused on
 * one replica is refused on all). Kept beside the loop's migrations, like the session's
 * (session-schema.ts): the gate's room is src/gate, its risk updates run inside the loop's
 * recording programs.
 */

/** The column type names of each dialect (its dialect object's). */
const types = { sqlite: dialects.sqlite.types, postgres: dialects.postgres.types } as const;

/**
 * Version 10:
 * - the session remembers how the respondent reached it (address, user agent, device
 *   fingerprint) and, when the gate refused it, the rule's code; its uid's open sessions are
 *   found by a partial index (the `concurrent` rule);
 * - admitted session starts by address and by uid (the `velocity-*` rules), pruned after a day;
 * - device fingerprints per uid, with when each was last seen (`duplicate-device`);
 * - entries carry their survey's Loi as issued and two flags: a complete recorded faster than
 *   SYNC_SPEEDER_FRACTION × Loi (`speeder`), and a security terminate (outcome or return);
 * - the respondent's risk (`score`): the flagged entries and reversals, summed as they change.
 */
export function gateSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
ALTER TABLE loop_sessions ADD COLUMN ip TEXT;
ALTER TABLE loop_sessions ADD COLUMN user_agent TEXT;
ALTER TABLE loop_sessions ADD COLUMN fingerprint TEXT;
ALTER TABLE loop_sessions ADD COLUMN gate TEXT;
CREATE INDEX loop_sessions_open_uid ON loop_sessions (uid) WHERE state = 'open';
CREATE TABLE loop_gate_starts (
  subject TEXT NOT NULL,
  started_at ${t.time} NOT NULL
);
CREATE INDEX loop_gate_starts_subject ON loop_gate_starts (subject, started_at);
CREATE INDEX loop_gate_starts_time ON loop_gate_starts (started_at);
CREATE TABLE loop_gate_devices (
  fingerprint TEXT NOT NULL,
  uid TEXT NOT NULL,
  seen_at ${t.time} NOT NULL,
  PRIMARY KEY (fingerprint, uid)
);
ALTER TABLE loop_entries ADD COLUMN loi_minutes ${t.decimal};
ALTER TABLE loop_entries ADD COLUMN speeder ${t.bool} NOT NULL DEFAULT false;
ALTER TABLE loop_entries ADD COLUMN flagged_security ${t.bool} NOT NULL DEFAULT false;
CREATE TABLE loop_respondent_risk (
  uid TEXT PRIMARY KEY,
  security ${t.bigint} NOT NULL DEFAULT 0,
  reversals ${t.bigint} NOT NULL DEFAULT 0,
  speeders ${t.bigint} NOT NULL DEFAULT 0,
  updated_at ${t.time} NOT NULL
);
`;
}
