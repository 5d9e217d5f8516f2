import { integer, isoTime as toIso, nullable, oneOf, text } from "../database/columns.ts";
import { recordEntryWithAttempt, recordOutcome, type RecordingSettings } from "../loop/store/loop-records.ts";
import { capWindowStart, decodeRespondentHistory, respondentHistorySql } from "../loop/store/respondent-history.ts";
import { flagSecurity } from "../loop/store/respondent-risk-records.ts";
import {
  command,
  execute,
  first,
  query,
  queryOne,
  rows,
  statement,
  type Program,
  type SqlRow,
} from "../loop/store/loop-program.ts";
import { rollBack, whole } from "../database/program.ts";
import type {
  EntryAdmission,
  EntryInput,
  OutcomeRecord,
  RespondentHistory,
  RecordEntryResult,
} from "../loop/store/loop-store.ts";
import type { AttemptReturn } from "@sds/routing";
import type { GateCode } from "@sds/sync-client";
import { openSessionOf, storedGateCode } from "../gate/gate-records.ts";

/*
 * The session's store logic, as programs over the loop store's tables (loop-program.ts): each
 * runs in one transaction on either driver. A session's row carries a version that every change
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

/** Where an answer came from. */
export type AnswerSource = "session" | "api" | "import";

/** One session as stored. */
export interface SessionRow {
  readonly id: string;
  readonly uid: string;
  readonly languageId: number;
  readonly device: "desktop" | "mobile" | "tablet" | null;
  readonly returnUrl: string | null;
  readonly state: "open" | "done";
  readonly doneReason: SessionDoneReason | null;
  readonly questionsAsked: number;
  readonly version: number;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** The respondent's device fingerprint, once the start or an answer carried it. */
  readonly fingerprint: string | null;
  /** The quality gate's rule that refused the respondent (the session is then done, `excluded`). */
  readonly gate: GateCode | null;
  readonly attempts: readonly AttemptRow[];
}

/** One survey a session offered, with how it came back: the return, else the entry's outcome (the S2S call). */
export interface AttemptRow {
  readonly token: string;
  readonly position: number;
  readonly surveyId: number;
  readonly link: string;
  readonly issuedAt: string;
  readonly returned: AttemptReturn | null;
  readonly returnedAt: string | null;
}

/** One stored answer of a respondent. */
export interface ProfileAnswer {
  readonly qualificationId: number;
  readonly languageId: number;
  readonly answers: readonly string[];
  readonly source: AnswerSource;
  readonly answeredAt: string;
}

/** Why a session is done, as stored. */
export const sessionDoneReasons = ["completed", "no-survey", "attempts", "excluded", "ended", "expired"] as const;
/** Why a session is done. */
export type SessionDoneReason = (typeof sessionDoneReasons)[number];

// An unknown value in a stored session is a StoreError (columns.ts), never a reopened session, a
// made-up reason or a return that did not happen.
const returns: readonly AttemptReturn[] = ["complete", "terminate", "overquota", "security", "drop"];
const asReturn = nullable(oneOf(returns));
const sessionState = oneOf(["open", "done"]);
const doneReason = nullable(oneOf(sessionDoneReasons));
const deviceName = nullable(oneOf(["desktop", "mobile", "tablet"]));
const textOrNull = (value: unknown): string | null =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : null;

function toAttempt(row: SqlRow): AttemptRow {
  // The return, else the outcome the marketplace called (whichever came first decides the next step).
  const returned = asReturn(row.returned) ?? asReturn(row.outcome);
  return {
    token: text(row.token),
    position: integer(row.position),
    surveyId: integer(row.survey_id),
    link: text(row.link),
    issuedAt: toIso(row.issued_at),
    returned,
    returnedAt:
      row.returned_at !== null && row.returned_at !== undefined
        ? toIso(row.returned_at)
        : returned === null
          ? null
          : toIso(row.outcome_at),
  };
}

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
  yield* rows(CREATE_SESSION, ...sessionValues(session, refused));
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
  if (created.length > 0) return decodeRespondent(created);
  yield* createSession(session);
  return yield* readRespondent(session.uid, now);
}

/** Ends an open session as the quality gate refused it (`excluded`, with the rule's code); false when it moved meanwhile. */
export function* refuseSession(id: string, version: number, code: GateCode): Program<boolean> {
  const row = yield* queryOne(
    "UPDATE loop_sessions SET state = 'done', done_reason = 'excluded', gate = ?, version = version + 1 WHERE id = ? AND version = ? AND state = 'open' RETURNING version",
    code,
    id,
    version,
  );
  return row !== undefined;
}

const SESSION_COLUMNS = `s.id, s.uid, s.language_id, s.device, s.return_url, s.state, s.done_reason, s.questions_asked, s.version,
  s.created_at, s.expires_at, s.fingerprint, s.gate, a.token, a.position, a.survey_id, a.link, a.issued_at, a.returned, a.returned_at,
  e.outcome, e.outcome_at`;
const SESSION_FROM = `FROM loop_sessions s LEFT JOIN loop_session_attempts a ON a.session_id = s.id LEFT JOIN loop_entries e ON e.token = a.token
WHERE s.id = ?`;

/** A session with its attempts, oldest first; undefined when there is none. One statement (one round trip). */
export function* readSession(id: string): Program<SessionRow | undefined> {
  return decodeSession(yield* query(`SELECT ${SESSION_COLUMNS} ${SESSION_FROM} ORDER BY a.position`, id));
}

/** A session from its rows (one per attempt, or one without any). */
function decodeSession(rows: readonly SqlRow[]): SessionRow | undefined {
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    id: text(row.id),
    uid: text(row.uid),
    languageId: integer(row.language_id),
    device: deviceName(row.device),
    returnUrl: nullable(text)(row.return_url),
    state: sessionState(row.state),
    doneReason: doneReason(row.done_reason),
    questionsAsked: integer(row.questions_asked),
    version: integer(row.version),
    createdAt: toIso(row.created_at),
    expiresAt: toIso(row.expires_at),
    fingerprint: textOrNull(row.fingerprint),
    gate: row.gate === null || row.gate === undefined ? null : storedGateCode(row.gate),
    attempts: rows
      .filter((attempt) => typeof attempt.token === "string")
      .map(toAttempt)
      .sort((a, b) => a.position - b.position),
  };
}

/** What a step decides on besides its session: the respondent's stored answers and history. */
export interface RespondentFacts {
  /** By question. */
  readonly profile: readonly ProfileAnswer[];
  /** Every entry, as the rules read it (respondent-history.ts). */
  readonly history: RespondentHistory;
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

const SESSION_WITH_RESPONDENT = statement<[id: string, id: string, windowStart: string, id: string], SqlRow>(
  `${SESSION_BRANCH}
UNION ALL ${respondentBranches("(SELECT uid FROM loop_sessions WHERE id = ?)")}`,
  (row) => row,
);
const RESPONDENT = statement<[uid: string, windowStart: string, uid: string], SqlRow>(
  respondentBranches("?"),
  (row) => row,
);
/**
 * {@link CREATE_SESSION} and the respondent's rows in one statement, where the dialect can write
 * in one (PostgreSQL): the rows are those before the insert, which changes none of them; the
 * row of kind `created` says the statement ran.
 */
const CREATE_SESSION_READING_RESPONDENT = statement<
  [...SessionValues, uid: string, windowStart: string, uid: string],
  SqlRow
>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `WITH created AS (${INSERT_SESSION} RETURNING id)
${respondentBranches("?")}
UNION ALL SELECT ${readBranch({ kind: "'created'" })} FROM created`
      : null,
  (row) => row,
);

/**
 * {@link CREATE_SESSION_READING_RESPONDENT} unless the uid has an open, unexpired session (the
 * quality gate's `concurrent`, gate-records.ts): the insert is skipped then, and a row of kind
 * `open` says so. Its snapshot is taken when it starts, after the gate's locks were taken.
 */
const CREATE_SESSION_UNLESS_OPEN = statement<
  [uid: string, now: string, ...SessionValues, uid: string, windowStart: string, uid: string],
  SqlRow
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
  (row) => row,
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
  if (found.some((row) => row.kind === "created")) return decodeRespondent(found);
  // The dialect cannot write in a read (SQLite, whose one writer needs no lock): the same, in steps.
  if ((yield* openSessionOf(session.uid, now)) !== undefined) return "open";
  yield* createSession(session);
  return yield* readRespondent(session.uid, now);
}

function decodeRespondent(rows: readonly SqlRow[]): RespondentFacts {
  return {
    profile: rows
      .filter((row) => row.kind === "profile")
      .map((row) => toProfileAnswer(row, row.answer_language_id))
      .sort((a, b) => a.qualificationId - b.qualificationId),
    history: decodeRespondentHistory(rows.filter((row) => row.kind === "history")),
  };
}

/** A session and its respondent's facts (their history as of `now`), in one statement; undefined when there is no session. */
export function* readSessionWithRespondent(
  id: string,
  now: Date,
): Program<{ readonly session: SessionRow; readonly respondent: RespondentFacts } | undefined> {
  const found = yield* rows(SESSION_WITH_RESPONDENT, id, id, capWindowStart(now), id);
  const session = decodeSession(found.filter((row) => row.kind === "session"));
  return session === undefined ? undefined : { session, respondent: decodeRespondent(found) };
}

/** A respondent's facts (their history as of `now`), in one statement. */
export function* readRespondent(uid: string, now: Date): Program<RespondentFacts> {
  return decodeRespondent(yield* rows(RESPONDENT, uid, capWindowStart(now), uid));
}

/** `profile` as it is once `answers` are stored at `at` in `languageId`: what a request that wrote them decides on, unread. */
export function withAnswers(
  profile: readonly ProfileAnswer[],
  answers: ReadonlyMap<number, readonly string[]>,
  languageId: number,
  source: AnswerSource,
  at: string,
): ProfileAnswer[] {
  const merged = new Map(profile.map((answer) => [answer.qualificationId, answer]));
  for (const [qualificationId, given] of answers)
    merged.set(qualificationId, { qualificationId, languageId, answers: [...given], source, answeredAt: at });
  return [...merged.values()].sort((a, b) => a.qualificationId - b.qualificationId);
}

/** Bumps the session's version if it still is `version` (taking its row lock); the new version, else undefined (stale). */
function* bump(id: string, version: number): Program<number | undefined> {
  const row = yield* queryOne(
    "UPDATE loop_sessions SET version = version + 1 WHERE id = ? AND version = ? RETURNING version",
    id,
    version,
  );
  return row === undefined ? undefined : Number(row.version);
}

const FINISH_SESSION = statement<[reason: string, id: string, version: number], number>(
  "UPDATE loop_sessions SET state = 'done', done_reason = ?, version = version + 1 WHERE id = ? AND version = ? AND state = 'open' RETURNING version",
  (row) => Number(row.version),
);

/** Ends an open session with a reason; false when it moved meanwhile. One statement, the whole write. */
export function* finishSession(id: string, version: number, reason: SessionDoneReason): Program<boolean> {
  return (yield* whole(FINISH_SESSION, reason, id, version)).length > 0;
}

/** The session's version bumped and its attempt added, in one statement where the dialect can (PostgreSQL); always one row there. */
const ADD_ATTEMPT = statement<
  [id: string, version: number, token: string, position: number, surveyId: number, link: string, issuedAt: string],
  number
>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `WITH bumped AS (
  UPDATE loop_sessions SET version = version + 1 WHERE id = ? AND version = ? RETURNING id
), attempt AS (
  INSERT INTO loop_session_attempts (token, session_id, position, survey_id, link, issued_at)
  SELECT ?, id, ?, ?, ?, ? FROM bumped RETURNING token
)
SELECT count(*) AS attempts FROM attempt`
      : null,
  (row) => Number(row.attempts),
);

/** What {@link issueAttempt} did. */
export type IssueResult<Refusal> =
  | { readonly kind: "stale" }
  | { readonly kind: "issued"; readonly issuedAt: string; readonly attached: readonly OutcomeRecord[] }
  | { readonly kind: "not-issued"; readonly result: Exclude<RecordEntryResult<Refusal>, { kind: "recorded" }> };

/**
 * Offers a survey: records its entry exactly as `POST /v1/entry-links` does (the loop's
 * `recordEntry`, with the same admission under the respondent's lock) and, in the same
 * transaction, the session's attempt, when the session's version is still `version`; when it is
 * not, the transaction is rolled back (`stale`, the entry with it).
 */
export function* issueAttempt<Refusal>(
  settings: RecordingSettings,
  attempt: { readonly sessionId: string; readonly version: number; readonly position: number; readonly link: string },
  entry: EntryInput,
  admit: EntryAdmission<Refusal>,
): Program<IssueResult<Refusal>> {
  // The session's row is locked last, after the respondent's and the entry's counts (no writer
  // takes them the other way round), which saves a round trip: a session that moved meanwhile
  // takes the entry back with it. Where it can, the entry's own statement adds the attempt.
  const { result, attempted: withEntry } = yield* recordEntryWithAttempt(entry, admit, settings, attempt);
  if (result.kind !== "recorded") return { kind: "not-issued", result };
  if (withEntry === false) return rollBack({ kind: "stale" });
  if (withEntry === true) return { kind: "issued", issuedAt: result.entry.issuedAt, attached: result.attached };
  const attempted = yield* first(
    ADD_ATTEMPT,
    attempt.sessionId,
    attempt.version,
    entry.token,
    attempt.position,
    entry.surveyId,
    attempt.link,
    entry.at.toISOString(),
  );
  if (attempted === 0) return rollBack({ kind: "stale" });
  if (attempted === undefined) {
    if ((yield* bump(attempt.sessionId, attempt.version)) === undefined) return rollBack({ kind: "stale" });
    yield* query(
      "INSERT INTO loop_session_attempts (token, session_id, position, survey_id, link, issued_at) VALUES (?, ?, ?, ?, ?, ?)",
      entry.token,
      attempt.sessionId,
      attempt.position,
      entry.surveyId,
      attempt.link,
      entry.at.toISOString(),
    );
  }
  return { kind: "issued", issuedAt: result.entry.issuedAt, attached: result.attached };
}

/**
 * A session's answers in one statement, where the dialect writes several tables in one
 * (PostgreSQL), in the order of locks of {@link storeAnswers}: the session's version is bumped
 * first (nothing else happens when it moved), then the answers replace the earlier ones (those
 * read under their row locks) and the counts move by the difference, each answer counted once
 * per question and side. `answers` is a JSON object of arrays by question; always one row.
 */
const STORE_SESSION_ANSWERS = statement<
  [
    answered: number,
    fingerprint: string | null,
    id: string,
    version: number,
    answers: string,
    uid: string,
    languageId: number,
    source: AnswerSource,
    at: string,
  ],
  boolean
>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `WITH session AS (
  UPDATE loop_sessions SET questions_asked = questions_asked + ?, fingerprint = COALESCE(fingerprint, ?), version = version + 1
  WHERE id = ? AND version = ? RETURNING version
), given AS (
  SELECT CAST(key AS BIGINT) AS qualification_id, CAST(value AS TEXT) AS answers FROM json_each(CAST(? AS JSON))
  WHERE EXISTS (SELECT 1 FROM session)
), earlier AS (
  SELECT p.qualification_id, p.language_id, p.answers FROM loop_profile_answers AS p
  JOIN given AS g ON g.qualification_id = p.qualification_id WHERE p.uid = $6 FOR UPDATE OF p
), saved AS (
  INSERT INTO loop_profile_answers (uid, qualification_id, language_id, answers, source, answered_at)
  SELECT $6, g.qualification_id, $7, g.answers, $8, $9 FROM given AS g LEFT JOIN earlier AS e ON e.qualification_id = g.qualification_id
  ON CONFLICT (uid, qualification_id) DO UPDATE SET language_id = excluded.language_id, answers = excluded.answers,
    source = excluded.source, answered_at = excluded.answered_at
  RETURNING qualification_id
), deltas AS (
  SELECT DISTINCT e.language_id, e.qualification_id, a.answer, -1 AS delta
  FROM earlier AS e CROSS JOIN json_array_elements_text(CAST(e.answers AS JSON)) AS a (answer)
  UNION ALL
  SELECT DISTINCT CAST($7 AS BIGINT), s.qualification_id, a.answer, 1
  FROM saved AS s JOIN given AS g ON g.qualification_id = s.qualification_id
    CROSS JOIN json_array_elements_text(CAST(g.answers AS JSON)) AS a (answer)
), counted AS (
  INSERT INTO loop_answer_counts (language_id, qualification_id, answer, answers)
  SELECT language_id, qualification_id, answer, SUM(delta) FROM deltas GROUP BY language_id, qualification_id, answer
  ON CONFLICT (language_id, qualification_id, answer) DO UPDATE SET answers = loop_answer_counts.answers + excluded.answers
  RETURNING answer
)
SELECT (SELECT count(*) FROM session) AS stored, (SELECT count(*) FROM counted) AS counted`
      : null,
  (row) => Number(row.stored) === 1,
);

/** Serialises the writers of one respondent's profile (a transaction-scoped advisory lock); SQLite skips it. */
const LOCK_PROFILE = command<[profileSubject: string]>((dialect) => {
  const locks = dialect.advisoryLocks([{ boundText: true }]);
  return locks === null ? null : `SELECT ${locks}`;
});

/**
 * Stores a respondent's answers (replacing earlier answers to the same questions) and keeps the
 * language's answer counts; with a session, counts them as answered in it, keeps the device
 * fingerprint passed when it has none yet (the first one stands) and bumps its version (false when
 * it moved meanwhile: nothing is written then). With a session on PostgreSQL, one
 * statement, the whole write.
 */
export function* storeAnswers(
  input: {
    readonly uid: string;
    readonly languageId: number;
    readonly answers: ReadonlyMap<number, readonly string[]>;
    readonly source: AnswerSource;
    readonly at: string;
  },
  session?: { readonly id: string; readonly version: number; readonly fingerprint?: string | undefined },
): Program<boolean> {
  if (session !== undefined) {
    const fingerprint = session.fingerprint ?? null;
    const [stored] = yield* whole(
      STORE_SESSION_ANSWERS,
      input.answers.size,
      fingerprint,
      session.id,
      session.version,
      JSON.stringify(Object.fromEntries(input.answers)),
      input.uid,
      input.languageId,
      input.source,
      input.at,
    );
    if (stored !== undefined) return stored;
    const row = yield* queryOne(
      "UPDATE loop_sessions SET questions_asked = questions_asked + ?, fingerprint = COALESCE(fingerprint, ?), version = version + 1 WHERE id = ? AND version = ? RETURNING version",
      input.answers.size,
      fingerprint,
      session.id,
      session.version,
    );
    if (row === undefined) return false;
  }
  // One writer of a respondent's profile at a time across replicas (SQLite's one writer already
  // is): two writers would both read the same earlier answer, take its count down twice and leave
  // one of their own counted for an answer the profile no longer holds.
  if (input.answers.size > 0) yield* execute(LOCK_PROFILE, `profile:${input.uid}`);
  for (const [qualificationId, answers] of input.answers) {
    const before = yield* queryOne(
      "SELECT language_id, answers FROM loop_profile_answers WHERE uid = ? AND qualification_id = ?",
      input.uid,
      qualificationId,
    );
    if (before !== undefined)
      yield* countAnswers(Number(before.language_id), qualificationId, parseAnswers(before.answers), -1);
    yield* query(
      `INSERT INTO loop_profile_answers (uid, qualification_id, language_id, answers, source, answered_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (uid, qualification_id) DO UPDATE SET language_id = excluded.language_id, answers = excluded.answers, source = excluded.source, answered_at = excluded.answered_at`,
      input.uid,
      qualificationId,
      input.languageId,
      JSON.stringify(answers),
      input.source,
      input.at,
    );
    yield* countAnswers(input.languageId, qualificationId, answers, 1);
  }
  return true;
}

function* countAnswers(
  languageId: number,
  qualificationId: number,
  answers: readonly string[],
  delta: number,
): Program<void> {
  for (const answer of new Set(answers)) {
    yield* query(
      `INSERT INTO loop_answer_counts (language_id, qualification_id, answer, answers) VALUES (?, ?, ?, ?)
ON CONFLICT (language_id, qualification_id, answer) DO UPDATE SET answers = loop_answer_counts.answers + excluded.answers`,
      languageId,
      qualificationId,
      answer,
      delta,
    );
  }
}

function parseAnswers(value: unknown): string[] {
  try {
    const parsed: unknown = JSON.parse(String(value));
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

/** A respondent's stored answers, by question. */
export function* readProfile(uid: string): Program<ProfileAnswer[]> {
  const rows = yield* query(
    "SELECT qualification_id, language_id, answers, source, answered_at FROM loop_profile_answers WHERE uid = ? ORDER BY qualification_id",
    uid,
  );
  return rows.map((row) => toProfileAnswer(row));
}

/** A profile row as a profile answer; `languageId`: the answer's language where the row names it otherwise. */
function toProfileAnswer(row: SqlRow, languageId: unknown = row.language_id): ProfileAnswer {
  return {
    qualificationId: Number(row.qualification_id),
    languageId: Number(languageId),
    answers: parseAnswers(row.answers),
    source: row.source === "session" || row.source === "import" ? row.source : "api",
    answeredAt: toIso(row.answered_at),
  };
}

/** Erases a respondent's stored answers (their history of entries stays: it is the buyer's exclusion record); how many. */
export function* eraseProfile(uid: string): Program<number> {
  const answers = yield* readProfile(uid);
  for (const answer of answers) yield* countAnswers(answer.languageId, answer.qualificationId, answer.answers, -1);
  yield* query("DELETE FROM loop_profile_answers WHERE uid = ?", uid);
  return answers.length;
}

/** How often each answer was given, per question, in one language. */
export function* answerCounts(languageId: number): Program<Map<number, Map<string, number>>> {
  const rows = yield* query(
    "SELECT qualification_id, answer, answers FROM loop_answer_counts WHERE language_id = ? AND answers > 0",
    languageId,
  );
  const counts = new Map<number, Map<string, number>>();
  for (const row of rows) {
    const id = Number(row.qualification_id);
    let question = counts.get(id);
    if (question === undefined) {
      question = new Map();
      counts.set(id, question);
    }
    question.set(String(row.answer), Number(row.answers));
  }
  return counts;
}

/** What a return's token belongs to: a session's attempt, an entry outside any session, or nothing. */
export type ReturnTarget =
  | {
      readonly kind: "attempt";
      readonly sessionId: string;
      readonly returnUrl: string | null;
      readonly expiresAt: string;
    }
  | { readonly kind: "entry" }
  | { readonly kind: "unknown" };

/** Finds what a returned token belongs to. */
export function* findReturnTarget(token: string): Program<ReturnTarget> {
  const attempt = yield* queryOne(
    "SELECT s.id, s.return_url, s.expires_at FROM loop_session_attempts a JOIN loop_sessions s ON s.id = a.session_id WHERE a.token = ?",
    token,
  );
  if (attempt !== undefined)
    return {
      kind: "attempt",
      sessionId: String(attempt.id),
      returnUrl: textOrNull(attempt.return_url),
      expiresAt: toIso(attempt.expires_at),
    };
  const entry = yield* queryOne("SELECT token FROM loop_entries WHERE token = ? AND source = 'link'", token);
  return entry === undefined ? { kind: "unknown" } : { kind: "entry" };
}

/** Records a return on its attempt, when none came before (the first decides), and moves its session's version. */
export function* recordReturn(token: string, returned: AttemptReturn, at: string): Program<boolean> {
  const row = yield* queryOne(
    "UPDATE loop_session_attempts SET returned = ?, returned_at = ? WHERE token = ? AND returned IS NULL RETURNING session_id",
    returned,
    at,
    token,
  );
  if (row === undefined) return false;
  yield* query("UPDATE loop_sessions SET version = version + 1 WHERE id = ?", String(row.session_id));
  // The respondent's own return says security: it counts in their risk even before (or without) the S2S call.
  if (returned === "security") yield* flagSecurity(token, true, new Date(at));
  return true;
}

/**
 * A return in one statement, where the dialect writes several tables in one (PostgreSQL): what
 * the token belongs to and, for a session's attempt whose session has not expired at `at`, the
 * return recorded as {@link recordReturn} records it (the attempt, then its session's version).
 * Always one row.
 */
const TAKE_RETURN = statement<[token: string, returned: AttemptReturn, at: string], ReturnTarget>(
  (dialect) =>
    dialect.dataModifyingCte
      ? `WITH target AS (
  SELECT a.token, s.id, s.return_url, s.expires_at FROM loop_session_attempts AS a JOIN loop_sessions AS s ON s.id = a.session_id
  WHERE a.token = $1
), returned AS (
  UPDATE loop_session_attempts AS a SET returned = $2, returned_at = $3 FROM target AS t
  WHERE a.token = t.token AND a.returned IS NULL AND t.expires_at > $3 RETURNING a.session_id
), bumped AS (
  UPDATE loop_sessions AS s SET version = s.version + 1 FROM returned AS r WHERE s.id = r.session_id RETURNING s.id
)
SELECT t.id, t.return_url, t.expires_at, (SELECT count(*) FROM bumped) AS bumped,
  EXISTS (SELECT 1 FROM loop_entries WHERE token = $1 AND source = 'link') AS entry
FROM (SELECT 1) AS one LEFT JOIN target AS t ON true`
      : null,
  (row): ReturnTarget =>
    row.id !== null && row.id !== undefined
      ? {
          kind: "attempt",
          sessionId: text(row.id),
          returnUrl: textOrNull(row.return_url),
          expiresAt: toIso(row.expires_at),
        }
      : row.entry === true
        ? { kind: "entry" }
        : { kind: "unknown" },
);

/**
 * A return as one write: what the token belongs to and, for a session's attempt whose session
 * has not expired at `at`, its return recorded ({@link recordReturn}). One statement on
 * PostgreSQL, the whole write, save a security return.
 */
export function* takeReturn(token: string, returned: AttemptReturn, at: Date): Program<ReturnTarget> {
  // A security return also flags the respondent's risk (recordReturn): the rare one takes the plain statements.
  if (returned !== "security") {
    const [taken] = yield* whole(TAKE_RETURN, token, returned, at.toISOString());
    if (taken !== undefined) return taken;
  }
  const target = yield* findReturnTarget(token);
  if (target.kind === "attempt" && Date.parse(target.expiresAt) > at.getTime())
    yield* recordReturn(token, returned, at.toISOString());
  return target;
}

/** Where a read of pending entries goes on from: after this entry (issued at, then token). */
export interface PendingCursor {
  readonly issuedAt: string;
  readonly token: string;
}

/**
 * Entries issued before `before` that still have no outcome, oldest first (the partial index
 * `loop_entries_pending`), after `after` when given: a page at a time, so a sweep reaches every
 * pending entry, not only the oldest `limit`.
 */
export function* pendingEntries(
  before: string,
  limit: number,
  after: PendingCursor = { issuedAt: new Date(0).toISOString(), token: "" },
): Program<{ token: string; surveyId: number; issuedAt: number }[]> {
  const rows = yield* query(
    "SELECT token, survey_id, issued_at FROM loop_entries WHERE outcome IS NULL AND source = 'link' AND issued_at < ? AND issued_at >= ? AND (issued_at > ? OR token > ?) ORDER BY issued_at, token LIMIT ?",
    before,
    after.issuedAt,
    after.issuedAt,
    after.token,
    limit,
  );
  return rows.map((row) => ({
    token: String(row.token),
    surveyId: Number(row.survey_id),
    issuedAt: Date.parse(toIso(row.issued_at)),
  }));
}

/**
 * Records a drop: the entry's outcome becomes a terminate with source `timeout` (a failed entry;
 * a later outcome replaces it as a transition), and its session's attempt comes back as `drop`.
 */
export function* recordDrop(
  settings: RecordingSettings,
  token: string,
  at: Date,
  reason: string,
): Program<OutcomeRecord | undefined> {
  const result = yield* recordOutcome({ token, outcome: "terminate", at, source: "timeout", reason }, settings);
  if (!result.recorded) return undefined;
  yield* recordReturn(token, "drop", at.toISOString());
  return result.record;
}

/** Deletes up to `limit` sessions that expired before `before`, with their attempts; how many. */
export function* pruneSessions(before: string, limit: number): Program<number> {
  const rows = yield* query(
    "SELECT id FROM loop_sessions WHERE expires_at < ? ORDER BY expires_at LIMIT ?",
    before,
    limit,
  );
  for (const row of rows) {
    yield* query("DELETE FROM loop_session_attempts WHERE session_id = ?", String(row.id));
    yield* query("DELETE FROM loop_sessions WHERE id = ?", String(row.id));
  }
  return rows.length;
}
