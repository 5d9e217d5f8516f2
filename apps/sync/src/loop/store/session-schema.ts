import { dialects } from "../../database/dialects.ts";
import type { Dialect } from "../../database/migration-ledger.ts";

/*
 * The respondent session's tables, in the loop store (so a session begun on one replica goes on
 * on another). Applied as loop migrations 7 and 8; kept beside the loop's migrations (not in src/session) so the loop folder imports nothing of the session's.
 */

/** The column type names of each dialect (its dialect object's). */
const types = { sqlite: dialects.sqlite.types, postgres: dialects.postgres.types } as const;

/**
 * Version 7: sessions, their attempts, respondents' profiles and the answer counts per language
 * (kept as profiles are written: the likelihood of each answer, read on every step, never
 * summed over profiles), and the index the drop sweeper reads (pending entries only).
 */
export function sessionSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE loop_sessions (
  id TEXT PRIMARY KEY,
  uid TEXT NOT NULL,
  language_id ${t.bigint} NOT NULL,
  device TEXT,
  return_url TEXT,
  state TEXT NOT NULL CHECK (state IN ('open', 'done')),
  done_reason TEXT,
  questions_asked ${t.bigint} NOT NULL DEFAULT 0,
  version ${t.bigint} NOT NULL DEFAULT 0,
  created_at ${t.time} NOT NULL,
  expires_at ${t.time} NOT NULL
);
CREATE INDEX loop_sessions_expiry ON loop_sessions (expires_at);
CREATE TABLE loop_session_attempts (
  token TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  position ${t.bigint} NOT NULL,
  survey_id ${t.bigint} NOT NULL,
  link TEXT NOT NULL,
  issued_at ${t.time} NOT NULL,
  returned TEXT CHECK (returned IN ('complete', 'terminate', 'overquota', 'security', 'drop')),
  returned_at ${t.time},
  UNIQUE (session_id, position)
);
CREATE TABLE loop_profile_answers (
  uid TEXT NOT NULL,
  qualification_id ${t.bigint} NOT NULL,
  language_id ${t.bigint} NOT NULL,
  answers TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('session', 'api', 'import')),
  answered_at ${t.time} NOT NULL,
  PRIMARY KEY (uid, qualification_id)
);
CREATE TABLE loop_answer_counts (
  language_id ${t.bigint} NOT NULL,
  qualification_id ${t.bigint} NOT NULL,
  answer TEXT NOT NULL,
  answers ${t.bigint} NOT NULL,
  PRIMARY KEY (language_id, qualification_id, answer)
);
CREATE INDEX loop_entries_pending ON loop_entries (issued_at) WHERE outcome IS NULL AND source = 'link';
`;
}

/**
 * Version 8: the question catalogue (QualificationDetailById per language and question), as the
 * leader last read it, with the outcome of each read (`missing`: a 404, `unreadable`), so every
 * replica asks alike and a question that cannot be read is visible.
 */
export function questionSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE loop_questions (
  language_id ${t.bigint} NOT NULL,
  qualification_id ${t.bigint} NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'missing', 'unreadable')),
  detail TEXT,
  problem TEXT,
  fetched_at ${t.time} NOT NULL,
  PRIMARY KEY (language_id, qualification_id)
);
INSERT INTO loop_counters (name, value) VALUES ('questions', 0);
`;
}

/**
 * Version 11: the start links of the respondent page that started a session (src/page), by a
 * hash of their signature, so a link used again lands on its session while that is open and is
 * refused after, with the link's returnUrl (kept here, not in the session, so a survey's return
 * lands on the page); a row is kept until both the link and its session have expired.
 */
export function startLinkSchema(dialect: Dialect): string {
  const t = types[dialect];
  return `
CREATE TABLE loop_start_links (
  signature_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  return_url TEXT,
  expires_at ${t.time} NOT NULL
);
CREATE INDEX loop_start_links_expiry ON loop_start_links (expires_at);
CREATE INDEX loop_start_links_session ON loop_start_links (session_id);
`;
}
