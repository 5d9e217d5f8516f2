import { isoTime as toIso } from "../database/columns.ts";
import { recordEntry, recordOutcome, type RecordingSettings } from "../loop/store/loop-records.ts";
import { flagSecurity } from "../loop/store/respondent-risk-records.ts";
import { query, queryOne, type Program, type SqlRow } from "../loop/store/loop-program.ts";
import type { EntryAdmission, EntryInput, OutcomeRecord, RecordEntryResult } from "../loop/store/loop-store.ts";
import type { AttemptReturn } from "@sds/routing";
import type { GateCode } from "@sds/sync-client";
import { storedGateCode } from "../gate/gate-records.ts";

/*
 * The session's store logic, as programs over the loop store's tables (loop-program.ts): each
 * runs in one transaction on either driver. A session's row carries a version that every change
 * of the session bumps first (`UPDATE … WHERE version = ?`): on PostgreSQL that row lock orders
 * the replicas that move one session, and a change decided on a stale read is refused (`stale`)
 * and decided again.
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
  readonly doneReason: string | null;
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

const returns: readonly AttemptReturn[] = ["complete", "terminate", "overquota", "security", "drop"];
const asReturn = (value: unknown): AttemptReturn | null => returns.find((kind) => kind === value) ?? null;
const textOrNull = (value: unknown): string | null =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : null;

function toAttempt(row: SqlRow): AttemptRow {
  // The return, else the outcome the marketplace called (whichever came first decides the next step).
  const returned = asReturn(row.returned) ?? asReturn(row.outcome);
  return {
    token: String(row.token),
    position: Number(row.position),
    surveyId: Number(row.survey_id),
    link: String(row.link),
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

/** Stores a new session: open, or (refused by the quality gate) done at once, `excluded` with the rule's code. */
export function* createSession(session: NewSession, refused?: GateCode): Program<void> {
  yield* query(
    "INSERT INTO loop_sessions (id, uid, language_id, device, return_url, state, done_reason, gate, ip, user_agent, fingerprint, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
  );
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

/** Keeps the device fingerprint a session's respondent came with (the first one stands). */
export function* keepFingerprint(id: string, fingerprint: string): Program<void> {
  yield* query("UPDATE loop_sessions SET fingerprint = ? WHERE id = ? AND fingerprint IS NULL", fingerprint, id);
}

/** A session with its attempts, oldest first; undefined when there is none. One statement (one round trip). */
export function* readSession(id: string): Program<SessionRow | undefined> {
  const rows = yield* query(
    `SELECT s.id, s.uid, s.language_id, s.device, s.return_url, s.state, s.done_reason, s.questions_asked, s.version,
  s.created_at, s.expires_at, s.fingerprint, s.gate, a.token, a.position, a.survey_id, a.link, a.issued_at, a.returned, a.returned_at,
  e.outcome, e.outcome_at
FROM loop_sessions s LEFT JOIN loop_session_attempts a ON a.session_id = s.id LEFT JOIN loop_entries e ON e.token = a.token
WHERE s.id = ? ORDER BY a.position`,
    id,
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const device = textOrNull(row.device);
  return {
    id: String(row.id),
    uid: String(row.uid),
    languageId: Number(row.language_id),
    device: device === "desktop" || device === "mobile" || device === "tablet" ? device : null,
    returnUrl: textOrNull(row.return_url),
    state: row.state === "done" ? "done" : "open",
    doneReason: textOrNull(row.done_reason),
    questionsAsked: Number(row.questions_asked),
    version: Number(row.version),
    createdAt: toIso(row.created_at),
    expiresAt: toIso(row.expires_at),
    fingerprint: textOrNull(row.fingerprint),
    gate: row.gate === null || row.gate === undefined ? null : storedGateCode(row.gate),
    attempts: rows.filter((attempt) => typeof attempt.token === "string").map(toAttempt),
  };
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

/** Ends an open session with a reason; false when it moved meanwhile. */
export function* finishSession(id: string, version: number, reason: string): Program<boolean> {
  const row = yield* queryOne(
    "UPDATE loop_sessions SET state = 'done', done_reason = ?, version = version + 1 WHERE id = ? AND version = ? AND state = 'open' RETURNING version",
    reason,
    id,
    version,
  );
  return row !== undefined;
}

/** What {@link issueAttempt} did. */
export type IssueResult<Refusal> =
  | { readonly kind: "stale" }
  | { readonly kind: "issued"; readonly issuedAt: string; readonly attached: readonly OutcomeRecord[] }
  | { readonly kind: "not-issued"; readonly result: Exclude<RecordEntryResult<Refusal>, { kind: "recorded" }> };

/**
 * Offers a survey: records its entry exactly as `POST /v1/entry-links` does (the loop's
 * `recordEntry`, with the same admission under the respondent's lock) and, in the same
 * transaction, the session's attempt, once the session's version is confirmed.
 */
export function* issueAttempt<Refusal>(
  settings: RecordingSettings,
  attempt: { readonly sessionId: string; readonly version: number; readonly position: number; readonly link: string },
  entry: EntryInput,
  admit: EntryAdmission<Refusal>,
): Program<IssueResult<Refusal>> {
  // Confirms the version under the row's lock, changing nothing yet: a refused entry leaves the session as it was.
  const locked = yield* queryOne(
    "UPDATE loop_sessions SET version = version WHERE id = ? AND version = ? RETURNING version",
    attempt.sessionId,
    attempt.version,
  );
  if (locked === undefined) return { kind: "stale" };
  const result = yield* recordEntry(entry, admit, settings);
  if (result.kind !== "recorded") return { kind: "not-issued", result };
  yield* bump(attempt.sessionId, attempt.version);
  yield* query(
    "INSERT INTO loop_session_attempts (token, session_id, position, survey_id, link, issued_at) VALUES (?, ?, ?, ?, ?, ?)",
    entry.token,
    attempt.sessionId,
    attempt.position,
    entry.surveyId,
    attempt.link,
    entry.at.toISOString(),
  );
  return { kind: "issued", issuedAt: result.entry.issuedAt, attached: result.attached };
}

/**
 * Stores a respondent's answers (replacing earlier answers to the same questions) and keeps the
 * language's answer counts; with a session, counts them as answered in it and bumps its version
 * (false when it moved meanwhile: nothing is written then).
 */
export function* storeAnswers(
  input: {
    readonly uid: string;
    readonly languageId: number;
    readonly answers: ReadonlyMap<number, readonly string[]>;
    readonly source: AnswerSource;
    readonly at: string;
  },
  session?: { readonly id: string; readonly version: number },
): Program<boolean> {
  if (session !== undefined) {
    const row = yield* queryOne(
      "UPDATE loop_sessions SET questions_asked = questions_asked + ?, version = version + 1 WHERE id = ? AND version = ? RETURNING version",
      input.answers.size,
      session.id,
      session.version,
    );
    if (row === undefined) return false;
  }
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
  return rows.map((row) => ({
    qualificationId: Number(row.qualification_id),
    languageId: Number(row.language_id),
    answers: parseAnswers(row.answers),
    source: row.source === "session" || row.source === "import" ? row.source : "api",
    answeredAt: toIso(row.answered_at),
  }));
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
 * A return as one transaction: what the token belongs to and, for a session's attempt whose
 * session has not expired at `at`, its return recorded ({@link recordReturn}).
 */
export function* takeReturn(token: string, returned: AttemptReturn, at: Date): Program<ReturnTarget> {
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
