import type { AttemptReturn } from "@sds/routing";
import { bool, epochMillis, integer, isoTime, text } from "../database/columns.ts";
import { execute, first, rollBack, rows, whole, type Program } from "../database/program.ts";
import { command, statement, type RawRow } from "../database/statement.ts";
import { recordEntryWithAttempt, recordOutcome } from "../loop/store/loop-records.ts";
import { flagSecurity } from "../loop/store/respondent-risk-records.ts";
import type {
  EntryAdmission,
  EntryInput,
  OutcomeRecord,
  RecordEntryResult,
  RecordingSettings,
} from "../loop/store/loop-store.ts";
import { bumpSession } from "./session-records.ts";
import { textOrNull } from "./session-rows.ts";

/*
 * A session's attempts and how they come back, as programs over typed statements: the survey a
 * session offers (its entry and attempt in one transaction), the respondent's return, the
 * entries still pending and the drop that ends them. Each runs in one transaction on either
 * driver; a write PostgreSQL can do in one statement (data-modifying CTEs) is that statement,
 * where SQLite runs the same program's plain statements (see session-records.ts).
 */

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
  (row) => integer(row.attempts),
);

const INSERT_ATTEMPT = command<
  [token: string, sessionId: string, position: number, surveyId: number, link: string, issuedAt: string]
>(
  "INSERT INTO loop_session_attempts (token, session_id, position, survey_id, link, issued_at) VALUES (?, ?, ?, ?, ?, ?)",
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
    if ((yield* bumpSession(attempt.sessionId, attempt.version)) === undefined) return rollBack({ kind: "stale" });
    yield* execute(
      INSERT_ATTEMPT,
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

/** A session's attempt a return's token belongs to, as its statements select it (`id, return_url, expires_at`). */
function decodeAttemptTarget(row: RawRow): ReturnTarget & { readonly kind: "attempt" } {
  return {
    kind: "attempt",
    sessionId: text(row.id),
    returnUrl: textOrNull(row.return_url),
    expiresAt: isoTime(row.expires_at),
  };
}

const ATTEMPT_TARGET = statement<[token: string], ReturnTarget>(
  "SELECT s.id, s.return_url, s.expires_at FROM loop_session_attempts a JOIN loop_sessions s ON s.id = a.session_id WHERE a.token = ?",
  decodeAttemptTarget,
);
const LINK_ENTRY = statement<[token: string], ReturnTarget>(
  "SELECT token FROM loop_entries WHERE token = ? AND source = 'link'",
  () => ({ kind: "entry" }),
);

/** Finds what a returned token belongs to. */
export function* findReturnTarget(token: string): Program<ReturnTarget> {
  return (yield* first(ATTEMPT_TARGET, token)) ?? (yield* first(LINK_ENTRY, token)) ?? { kind: "unknown" };
}

const RECORD_RETURN = statement<[returned: AttemptReturn, at: string, token: string], string>(
  "UPDATE loop_session_attempts SET returned = ?, returned_at = ? WHERE token = ? AND returned IS NULL RETURNING session_id",
  (row) => text(row.session_id),
);
const MOVE_SESSION = command<[id: string]>("UPDATE loop_sessions SET version = version + 1 WHERE id = ?");

/** Records a return on its attempt, when none came before (the first decides), and moves its session's version. */
export function* recordReturn(token: string, returned: AttemptReturn, at: string): Program<boolean> {
  const sessionId = yield* first(RECORD_RETURN, returned, at, token);
  if (sessionId === undefined) return false;
  yield* execute(MOVE_SESSION, sessionId);
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
      ? decodeAttemptTarget(row)
      : bool(row.entry)
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
): Program<PendingEntry[]> {
  return yield* rows(PENDING_ENTRIES, before, after.issuedAt, after.issuedAt, after.token, limit);
}

/** An entry still without an outcome, as the drop sweeper reads it. */
export interface PendingEntry {
  readonly token: string;
  readonly surveyId: number;
  /** Epoch milliseconds. */
  readonly issuedAt: number;
}

const PENDING_ENTRIES = statement<
  [before: string, afterIssuedAt: string, afterIssuedAt: string, afterToken: string, limit: number],
  PendingEntry
>(
  "SELECT token, survey_id, issued_at FROM loop_entries WHERE outcome IS NULL AND source = 'link' AND issued_at < ? AND issued_at >= ? AND (issued_at > ? OR token > ?) ORDER BY issued_at, token LIMIT ?",
  (row) => ({ token: text(row.token), surveyId: integer(row.survey_id), issuedAt: epochMillis(row.issued_at) }),
);

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
