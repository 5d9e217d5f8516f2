import type { AttemptReturn } from "@sds/routing";
import type { GateCode } from "@sds/sync-client";
import { StoreError } from "../common/errors.ts";
import { integer, isoTime, json, nullable, oneOf, text } from "../database/columns.ts";
import type { RawRow } from "../database/statement.ts";
import { storedGateCode } from "../gate/gate-records.ts";
import type { RespondentHistory } from "../loop/store/loop-store.ts";
import { decodeHistoryRow, historyOf, type HistoryRow } from "../loop/store/respondent-history.ts";

/*
 * The session's rows as its statements decode them (session-records.ts, attempt-records.ts,
 * profile-records.ts): each row shape read one way for both drivers, once, where the statement
 * returns it. An unknown value in a stored session, attempt or answer is a StoreError
 * (columns.ts), never a reopened session, a made-up reason, a return that did not happen or an
 * answer read as none.
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

/** What a step decides on besides its session: the respondent's stored answers and history. */
export interface RespondentFacts {
  /** By question. */
  readonly profile: readonly ProfileAnswer[];
  /** Every entry, as the rules read it (respondent-history.ts). */
  readonly history: RespondentHistory;
}

/** Why a session is done, as stored. */
export const sessionDoneReasons = ["completed", "no-survey", "attempts", "excluded", "ended", "expired"] as const;
/** Why a session is done. */
export type SessionDoneReason = (typeof sessionDoneReasons)[number];

const returns: readonly AttemptReturn[] = ["complete", "terminate", "overquota", "security", "drop"];
const asReturn = nullable(oneOf(returns));
const sessionState = oneOf(["open", "done"]);
const doneReason = nullable(oneOf(sessionDoneReasons));
const deviceName = nullable(oneOf(["desktop", "mobile", "tablet"]));
const answerSource = oneOf<AnswerSource>(["session", "api", "import"]);
/** A nullable text column. */
export const textOrNull = nullable(text);

/** One row of a session's read: the session's columns, and one of its attempts (none: a session without any). */
export interface SessionPart {
  readonly session: Omit<SessionRow, "attempts">;
  readonly attempt: AttemptRow | null;
}

/** A row of `loop_sessions` left-joined with an attempt and its entry (see `SESSION_COLUMNS`). */
export function decodeSessionPart(row: RawRow): SessionPart {
  return {
    session: {
      id: text(row.id),
      uid: text(row.uid),
      languageId: integer(row.language_id),
      device: deviceName(row.device),
      returnUrl: textOrNull(row.return_url),
      state: sessionState(row.state),
      doneReason: doneReason(row.done_reason),
      questionsAsked: integer(row.questions_asked),
      version: integer(row.version),
      createdAt: isoTime(row.created_at),
      expiresAt: isoTime(row.expires_at),
      fingerprint: textOrNull(row.fingerprint),
      gate: row.gate === null || row.gate === undefined ? null : storedGateCode(row.gate),
    },
    attempt: row.token === null || row.token === undefined ? null : decodeAttempt(row),
  };
}

function decodeAttempt(row: RawRow): AttemptRow {
  // The return, else the outcome the marketplace called (whichever came first decides the next step).
  const returned = asReturn(row.returned) ?? asReturn(row.outcome);
  return {
    token: text(row.token),
    position: integer(row.position),
    surveyId: integer(row.survey_id),
    link: text(row.link),
    issuedAt: isoTime(row.issued_at),
    returned,
    returnedAt:
      row.returned_at !== null && row.returned_at !== undefined
        ? isoTime(row.returned_at)
        : returned === null
          ? null
          : isoTime(row.outcome_at),
  };
}

/** A session from its decoded rows (one per attempt, or one without any); undefined when there are none. */
export function assembleSession(parts: readonly SessionPart[]): SessionRow | undefined {
  const first = parts[0];
  if (first === undefined) return undefined;
  const attempts = parts.flatMap((part) => (part.attempt === null ? [] : [part.attempt]));
  return { ...first.session, attempts: attempts.sort((a, b) => a.position - b.position) };
}

/** A stored answer list: a JSON array of texts, as {@link storeAnswers} writes it. */
export function decodeAnswers(value: unknown): string[] {
  const parsed = json(value);
  if (Array.isArray(parsed) && parsed.every((answer) => typeof answer === "string")) return parsed;
  throw new StoreError(
    `the store returned ${JSON.stringify(text(value).slice(0, 40))} where a JSON array of answers was expected`,
  );
}

/** A row of `loop_profile_answers`; `languageColumn`: where the row holds the answer's language. */
export function decodeProfileAnswer(row: RawRow, languageColumn = "language_id"): ProfileAnswer {
  return {
    qualificationId: integer(row.qualification_id),
    languageId: integer(row[languageColumn]),
    answers: decodeAnswers(row.answers),
    source: answerSource(row.source),
    answeredAt: isoTime(row.answered_at),
  };
}

/**
 * One row of a read of a session beside its respondent's facts (session-records.ts'
 * `readBranch`): each row says its kind; `created` and `open` say what a statement that stores a
 * session did.
 */
export type SessionReadRow =
  | { readonly kind: "session"; readonly part: SessionPart }
  | { readonly kind: "profile"; readonly answer: ProfileAnswer }
  | { readonly kind: "history"; readonly row: HistoryRow }
  | { readonly kind: "created" | "open" };

const readKind = oneOf(["session", "profile", "history", "created", "open"]);

/** One row of a read of a session and its respondent, by its kind. */
export function decodeSessionReadRow(row: RawRow): SessionReadRow {
  const kind = readKind(row.kind);
  switch (kind) {
    case "session":
      return { kind, part: decodeSessionPart(row) };
    case "profile":
      return { kind, answer: decodeProfileAnswer(row, "answer_language_id") };
    case "history":
      return { kind, row: decodeHistoryRow(row) };
    default:
      return { kind };
  }
}

/** The session among decoded read rows; undefined when there is none. */
export function sessionOf(rows: readonly SessionReadRow[]): SessionRow | undefined {
  return assembleSession(rows.flatMap((row) => (row.kind === "session" ? [row.part] : [])));
}

/** The respondent's facts among decoded read rows. */
export function respondentOf(rows: readonly SessionReadRow[]): RespondentFacts {
  return {
    profile: rows
      .flatMap((row) => (row.kind === "profile" ? [row.answer] : []))
      .sort((a, b) => a.qualificationId - b.qualificationId),
    history: historyOf(rows.flatMap((row) => (row.kind === "history" ? [row.row] : []))),
  };
}
