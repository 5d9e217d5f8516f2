import type { GateCode } from "@sds/sync-client";
import { integer, text } from "../database/columns.ts";
import { execute, first, rows, whole, type Program } from "../database/program.ts";
import { command, statement } from "../database/statement.ts";
import { capWindowStart, respondentHistorySql } from "../loop/store/respondent-history.ts";
import { openSessionOf } from "../gate/gate-records.ts";
import {
  assembleSession,
  decodeSessionPart,
  decodeSessionReadRow,
  respondentOf,
  sessionOf,
  type RespondentFacts,
  type SessionDoneReason,
  type SessionPart,
  type SessionReadRow,
  type SessionRow,
} from "./session-rows.ts";
/*
 * The session's store logic, as programs over typed statements on the loop store's tables
 * (database/program.ts; rows decoded in session-rows.ts): each runs in one transaction on either
 * driver; a session's attempts and returns are in attempt-records.ts, its respondent's answers in
 * profile-records.ts. A session's row carries a version that every change
 * of the session bumps first (`UPDATE … WHERE version = ?`): on PostgreSQL that row lock orders
 * the replicas that move one session, and a change decided on a stale read is refused (`stale`)
 * and decided again.
 *
 * Round trips (PostgreSQL, counted by `bench:session-http`): a step reads its session, the
 * respondent's profile and history in one statement ({@link readSessionWithRespondent}); a
 * write that PostgreSQL can do in one statement (data-modifying CTEs) is that statement, run
 * without BEGIN … COMMIT where it is the whole write ({@link whole}); SQLite, where a statement
 * costs no round trip, runs the same program's plain statements instead.
 */

/** A new session as stored: how the respondent reached it too (the quality gate's facts). */
export interface NewSession extends Omit<
  SessionRow,
  "attempts" | "state" | "doneReason" | "questionsAsked" | "version" | "gate"
> {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

type SessionValues = [
  id: string,
  uid: string,
  languageId: number,
  device: string | null,
  returnUrl: string | null,
  state: "open" | "done",
  doneReason: string | null,
  gate: GateCode | null,
  ip: string | null,
  userAgent: string | null,
  fingerprint: string | null,
  createdAt: string,
  expiresAt: string,
];
const INSERT_SESSION_INTO =
  "INSERT INTO loop_sessions (id, uid, language_id, device, return_url, state, done_reason, gate, ip, user_agent, fingerprint, created_at, expires_at)";
/** One placeholder per value of {@link SessionValues}. */
const SESSION_PLACEHOLDERS = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
const INSERT_SESSION = `${INSERT_SESSION_INTO} VALUES (${SESSION_PLACEHOLDERS})`;
const CREATE_SESSION = command<SessionValues>(INSERT_SESSION);

function sessionValues(session: NewSession, refused?: GateCode): SessionValues {
  return [
    session.id,
    session.uid,
    session.languageId,
    session.device,
    session.returnUrl,
    refused === undefined ? "open" : "done",
    refused === undefined ? null : "excluded",
    refused ?? null,
    session.ip,
    session.userAgent,
    session.fingerprint,
    session.createdAt,
    session.expiresAt,
  ];
}

/** Stores a new session: open, or (refused by the quality gate) done at once, `excluded` with the rule's code. */
export function* createSession(session: NewSession, refused?: GateCode): Program<void> {
  yield* execute(CREATE_SESSION, ...sessionValues(session, refused));
}

/**
 * Stores a new open session and reads its respondent's facts (their history as of `now`), as
 * its first step needs them: one statement on PostgreSQL, the whole write when nothing came
 * before it in the program (no rule of the quality gate ran).
 */
export function* createSessionReadingRespondent(session: NewSession, now: Date): Program<RespondentFacts> {
  const created = yield* whole(
    CREATE_SESSION_READING_RESPONDENT,
    ...sessionValues(session),
    session.uid,
    capWindowStart(now),
    session.uid,
  );
  if (created.length > 0) return respondentOf(created);
  yield* createSession(session);
  return yield* readRespondent(session.uid, now);
}

const REFUSE_SESSION = statement<[code: GateCode, id: string, version: number], number>(
  "UPDATE loop_sessions SET state = 'done', done_reason = 'excluded', gate = ?, version = version + 1 WHERE id = ? AND version = ? AND state = 'open' RETURNING version",
  (row) => integer(row.version),
);

/** Ends an open session as the quality gate refused it (`excluded`, with the rule's code); false when it moved meanwhile. */
export function* refuseSession(id: string, version: number, code: GateCode): Program<boolean> {
  return (yield* first(REFUSE_SESSION, code, id, version)) !== undefined;
}

const SESSION_COLUMNS = `s.id, s.uid, s.language_id, s.device, s.return_url, s.state, s.done_reason, s.questions_asked, s.version,
  s.created_at, s.expires_at, s.fingerprint, s.gate, a.token, a.position, a.survey_id, a.link, a.issued_at, a.returned, a.returned_at,
  e.outcome, e.outcome_at`;
const SESSION_FROM = `FROM loop_sessions s LEFT JOIN loop_session_attempts a ON a.session_id = s.id LEFT JOIN loop_entries e ON e.token = a.token
WHERE s.id = ?`;

const READ_SESSION = statement<[id: string], SessionPart>(
  `SELECT ${SESSION_COLUMNS} ${SESSION_FROM} ORDER BY a.position`,
  decodeSessionPart,
);

/** A session with its attempts, oldest first; undefined when there is none. One statement (one round trip). */
export function* readSession(id: string): Program<SessionRow | undefined> {
  return assembleSession(yield* rows(READ_SESSION, id));
}

/*
 * The respondent's rows beside a session's, in one statement: each row says its kind, and the
 * columns a kind has no use for are NULL. Every branch names every column (the first branch names
 * a UNION's columns; a branch of NULLs would leave them nameless). The history is the loop's one
 * read of it (respondent-history.ts), selected from as a derived table that holds no NULLs.
 */
const READ_COLUMNS = [
  "kind",
  "id",
  "uid",
  "language_id",
  "device",
  "return_url",
  "state",
  "done_reason",
  "questions_asked",
  "version",
  "created_at",
  "expires_at",
  "fingerprint",
  "gate",
  "token",
  "position",
  "survey_id",
  "link",
  "issued_at",
  "returned",
  "returned_at",
  "outcome",
  "outcome_at",
  "qualification_id",
  "answers",
  "source",
  "answered_at",
  "answer_language_id",
  "recent",
] as const;

/** A branch's select list: each column of {@link READ_COLUMNS} from `values`, NULL where it has none. */
function readBranch(values: Partial<Record<(typeof READ_COLUMNS)[number], string>>): string {
  return READ_COLUMNS.map((column) => `${values[column] ?? "NULL"} AS ${column}`).join(", ");
}

const SESSION_BRANCH = `SELECT ${readBranch({
  kind: "'session'",
  id: "s.id",
  uid: "s.uid",
  language_id: "s.language_id",
  device: "s.device",
  return_url: "s.return_url",
  state: "s.state",
  done_reason: "s.done_reason",
  questions_asked: "s.questions_asked",
  version: "s.version",
  created_at: "s.created_at",
  expires_at: "s.expires_at",
  fingerprint: "s.fingerprint",
  gate: "s.gate",
  token: "a.token",
  position: "a.position",
  survey_id: "a.survey_id",
  link: "a.link",
  issued_at: "a.issued_at",
  returned: "a.returned",
  returned_at: "a.returned_at",
  outcome: "e.outcome",
  outcome_at: "e.outcome_at",
  // A number, not NULL, in the branches before the history's: PostgreSQL would type two NULLs as text.
  recent: "0",
})} ${SESSION_FROM}`;

const respondentBranches = (uid: string) => `SELECT ${readBranch({
  kind: "'profile'",
  qualification_id: "p.qualification_id",
  answers: "p.answers",
  source: "p.source",
  answered_at: "p.answered_at",
  answer_language_id: "p.language_id",
  recent: "0",
})} FROM loop_profile_answers p WHERE p.uid = ${uid}
UNION ALL SELECT ${readBranch({ kind: "'history'", survey_id: "h.survey_id", issued_at: "h.issued_at", outcome: "h.outcome", recent: "h.recent" })}
FROM (${respondentHistorySql(uid)}) AS h`;

const SESSION_WITH_RESPONDENT = statement<[id: string, id: string, windowStart: string, id: string], SessionReadRow>(
  `${SESSION_BRANCH}
UNION ALL ${respondentBranches("(SELECT uid FROM loop_sessions WHERE id = ?)")}`,
  decodeSessionReadRow,
);
const RESPONDENT = statement<[uid: string, windowStart: string, uid: string], SessionReadRow>(
  respondentBranches("?"),
  decodeSessionReadRow,
);
/**
 * {@link CREATE_SESSION} and the respondent's rows in one statement, where the dialect can write
 * in one (PostgreSQL): the rows are those before the insert, which changes none of them; the
 * row of kind `created` says the statement ran.
 */
const CREATE_SESSION_READING_RESPONDENT = statement<
  [...SessionValues, uid: string, windowStart: string, uid: string],
  SessionReadRow
>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `WITH created AS (${INSERT_SESSION} RETURNING id)
${respondentBranches("?")}
UNION ALL SELECT ${readBranch({ kind: "'created'" })} FROM created`
      : null,
  decodeSessionReadRow,
);

/**
 * {@link CREATE_SESSION_READING_RESPONDENT} unless the uid has an open, unexpired session (the
 * quality gate's `concurrent`, gate-records.ts): the insert is skipped then, and a row of kind
 * `open` says so. Its snapshot is taken when it starts, after the gate's locks were taken.
 */
const CREATE_SESSION_UNLESS_OPEN = statement<
  [uid: string, now: string, ...SessionValues, uid: string, windowStart: string, uid: string],
  SessionReadRow
>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `WITH open AS (SELECT id FROM loop_sessions WHERE uid = ? AND state = 'open' AND expires_at > ? LIMIT 1),
created AS (
  ${INSERT_SESSION_INTO} SELECT ${SESSION_PLACEHOLDERS} WHERE NOT EXISTS (SELECT 1 FROM open) RETURNING id
)
${respondentBranches("?")}
UNION ALL SELECT ${readBranch({ kind: "'created'" })} FROM created
UNION ALL SELECT ${readBranch({ kind: "'open'" })} FROM open`
      : null,
  decodeSessionReadRow,
);

/**
 * Stores a new open session and reads its respondent's facts, unless the uid already has an open,
 * unexpired session (`open`, nothing stored): the quality gate's `concurrent` re-checked by the
 * statement that stores the session (one on PostgreSQL, under the gate's locks taken before it).
 */
export function* createSessionUnlessOpen(session: NewSession, now: Date): Program<RespondentFacts | "open"> {
  const at = now.toISOString();
  const found = yield* rows(
    CREATE_SESSION_UNLESS_OPEN,
    session.uid,
    at,
    ...sessionValues(session),
    session.uid,
    capWindowStart(now),
    session.uid,
  );
  if (found.some((row) => row.kind === "open")) return "open";
  if (found.some((row) => row.kind === "created")) return respondentOf(found);
  // The dialect cannot write in a read (SQLite, whose one writer needs no lock): the same, in steps.
  if ((yield* openSessionOf(session.uid, now)) !== undefined) return "open";
  yield* createSession(session);
  return yield* readRespondent(session.uid, now);
}

/** A session and its respondent's facts (their history as of `now`), in one statement; undefined when there is no session. */
export function* readSessionWithRespondent(
  id: string,
  now: Date,
): Program<{ readonly session: SessionRow; readonly respondent: RespondentFacts } | undefined> {
  const found = yield* rows(SESSION_WITH_RESPONDENT, id, id, capWindowStart(now), id);
  const session = sessionOf(found);
  return session === undefined ? undefined : { session, respondent: respondentOf(found) };
}

/** A respondent's facts (their history as of `now`), in one statement. */
export function* readRespondent(uid: string, now: Date): Program<RespondentFacts> {
  return respondentOf(yield* rows(RESPONDENT, uid, capWindowStart(now), uid));
}

/** Bumps the session's version if it still is `version` (taking its row lock); the new version, else undefined (stale). */
export function* bumpSession(id: string, version: number): Program<number | undefined> {
  return yield* first(BUMP_SESSION, id, version);
}

const BUMP_SESSION = statement<[id: string, version: number], number>(
  "UPDATE loop_sessions SET version = version + 1 WHERE id = ? AND version = ? RETURNING version",
  (row) => integer(row.version),
);

const FINISH_SESSION = statement<[reason: string, id: string, version: number], number>(
  "UPDATE loop_sessions SET state = 'done', done_reason = ?, version = version + 1 WHERE id = ? AND version = ? AND state = 'open' RETURNING version",
  (row) => integer(row.version),
);

/** Ends an open session with a reason; false when it moved meanwhile. One statement, the whole write. */
export function* finishSession(id: string, version: number, reason: SessionDoneReason): Program<boolean> {
  return (yield* whole(FINISH_SESSION, reason, id, version)).length > 0;
}

/** Deletes up to `limit` sessions that expired before `before`, with their attempts; how many. */
export function* pruneSessions(before: string, limit: number): Program<number> {
  const expired = yield* rows(EXPIRED_SESSIONS, before, limit);
  for (const id of expired) {
    yield* execute(DELETE_ATTEMPTS_OF, id);
    yield* execute(DELETE_SESSION, id);
  }
  return expired.length;
}

const EXPIRED_SESSIONS = statement<[before: string, limit: number], string>(
  "SELECT id FROM loop_sessions WHERE expires_at < ? ORDER BY expires_at LIMIT ?",
  (row) => text(row.id),
);
const DELETE_ATTEMPTS_OF = command<[sessionId: string]>("DELETE FROM loop_session_attempts WHERE session_id = ?");
const DELETE_SESSION = command<[id: string]>("DELETE FROM loop_sessions WHERE id = ?");
