import type { GateCode, SessionBody } from "@sds/sync-client";
import { countRefusal } from "../gate/gate-records.ts";
import type { QualityGate } from "../gate/quality-gate.ts";
import type { Program } from "../database/program.ts";
import {
  createSession,
  createSessionReadingRespondent,
  createSessionUnlessOpen,
  readRespondent,
  refuseSession,
  type NewSession,
} from "./session-records.ts";
import type { RespondentFacts, SessionRow } from "./session-rows.ts";
import { storeAnswers } from "./profile-records.ts";

/*
 * The session's writes that the quality gate judges, each one transaction (a program over the
 * loop store): what the gate admits is recorded with the session's own change, and what it
 * refuses ends the session with the rule's code and is counted, atomically.
 */

/** A session about to start. */
export interface StartingSession {
  readonly id: string;
  readonly body: SessionBody;
  /** The answers passed, checked: stored as the respondent's profile (source `api`). */
  readonly answers: ReadonlyMap<number, readonly string[]>;
  readonly now: Date;
  readonly ttlSeconds: number;
}

function newSession({ id, body, now, ttlSeconds }: StartingSession): NewSession {
  return {
    id,
    uid: body.uid,
    languageId: body.languageId,
    device: body.device ?? null,
    returnUrl: body.returnUrl ?? null,
    ip: body.ip ?? null,
    userAgent: body.userAgent ?? null,
    fingerprint: body.fingerprint ?? null,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
  };
}

/**
 * Stores a new session: refused (`screened`, the rules judged before the transaction, or the
 * gate's counted rules under its locks), it is stored done with the code and the refusal counted;
 * admitted, it is stored open with its answers, and the respondent's facts are read for its first
 * step in the same round trip where the store can (session-records.ts). The code of a refusal,
 * else the respondent's facts.
 */
export function* startSession(
  session: StartingSession,
  gate: QualityGate | undefined,
  screened: GateCode | undefined,
): Program<{ readonly refused: GateCode } | { readonly refused?: undefined; readonly respondent: RespondentFacts }> {
  let code = screened;
  if (code === undefined && gate !== undefined) {
    if (session.answers.size === 0 && gate.admitsByConcurrentAlone(session.body)) {
      // `concurrent` re-checked under the gate's locks by the insert itself: one round trip, not two.
      yield* gate.lockStart(session.body);
      const created = yield* createSessionUnlessOpen(newSession(session), session.now);
      if (created !== "open") return { respondent: created };
      code = "concurrent";
    } else code = yield* gate.admitStart(session.body, session.now);
  }
  if (code !== undefined) {
    yield* createSession(newSession(session), code);
    yield* countRefusal(code);
    return { refused: code };
  }
  if (session.answers.size === 0)
    return { respondent: yield* createSessionReadingRespondent(newSession(session), session.now) };
  yield* createSession(newSession(session));
  yield* storeAnswers({
    uid: session.body.uid,
    languageId: session.body.languageId,
    answers: session.answers,
    source: "api",
    at: session.now.toISOString(),
  });
  return { respondent: yield* readRespondent(session.body.uid, session.now) };
}

/**
 * Stores a session's answers (source `session`) under its version; a fingerprint passed with them
 * (the session's first) is judged first (`duplicate-device`): refused, the session ends with the
 * code and nothing of the answers is kept. `stale` when the session moved meanwhile.
 */
export function* answerSession(
  row: SessionRow,
  answers: ReadonlyMap<number, readonly string[]>,
  fingerprint: string | undefined,
  now: Date,
  gate: QualityGate | undefined,
): Program<"stored" | "stale" | GateCode> {
  if (fingerprint !== undefined && gate !== undefined) {
    const code = yield* gate.admitDevice(row.uid, fingerprint, now);
    if (code !== undefined) return (yield* refuseRespondent(row, code)) ? code : "stale";
  }
  const stored = yield* storeAnswers(
    { uid: row.uid, languageId: row.languageId, answers, source: "session", at: now.toISOString() },
    { id: row.id, version: row.version, fingerprint },
  );
  return stored ? "stored" : "stale";
}

/** Ends an open session as the gate refused it, and counts the refusal; false when the session moved meanwhile. */
export function* refuseRespondent(row: Pick<SessionRow, "id" | "version">, code: GateCode): Program<boolean> {
  if (!(yield* refuseSession(row.id, row.version, code))) return false;
  yield* countRefusal(code);
  return true;
}
