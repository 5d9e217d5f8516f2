import { randomBytes } from "node:crypto";
import {
  nextSessionStep,
  type DecisionExplanation,
  type SessionDecisionOptions,
  type SessionInventory,
  type SessionSituation,
} from "@sds/routing";
import { StoreError } from "../common/errors.ts";
import { canonicalAddress } from "../http/client-address.ts";
import { errorReply, type Reply } from "../http/respond.ts";
import type { LoopContext } from "../loop/loop-context.ts";
import { prepareEntry } from "../loop/entry-link-routes.ts";
import type { QuestionCatalogue } from "./question-catalogue.ts";
import { finishSession, readRespondent, readSession, readSessionWithRespondent } from "./session-records.ts";
import type { AttemptRow, RespondentFacts, SessionDoneReason, SessionRow } from "./session-rows.ts";
import { answerCounts, withAnswers } from "./profile-records.ts";
import { issueAttempt } from "./attempt-records.ts";
import type { GateCode, Session, SessionAnswers, SessionBody, SessionStep } from "@sds/sync-client";
import type { QualityGate } from "../gate/quality-gate.ts";
import { answerSession, refuseRespondent, startSession } from "./gated-writes.ts";

/** How the sessions behave (the SYNC_SESSION_* and SYNC_QUESTION_* settings). */
export interface SessionSettings {
  readonly maxAttempts: number;
  readonly ttlSeconds: number;
  readonly questionSeconds: number;
  readonly profileTtlDays: number;
}

/** Rounds of deciding again when another request (or replica) moved the session meanwhile. */
const MAX_ROUNDS = 6;
/** How long the answer counts of a language are reused before they are read again, in ms. */
const COUNTS_TTL_MS = 10_000;

/**
 * A session's answer: the Session, or an error reply. `refused`: this very request had the
 * quality gate refuse the respondent (the session is done, `excluded`, with the code); the API
 * answers it 403 `respondent_refused`, the respondent's page shows the session.
 */
export type SessionOutcome =
  | { readonly kind: "session"; readonly session: Session; readonly refused?: GateCode }
  | { readonly kind: "reply"; readonly reply: Reply };

/** What a respondent's page passes with answers besides them. */
export interface SessionClient {
  /** The device fingerprint the page computed (the quality gate's `duplicate-device`). */
  readonly fingerprint?: string | undefined;
  /**
   * The answers come from the respondent's own page, not a supplier's server: only questions a
   * session asks (the catalogue's, in the session's language) are taken, so a posted form cannot
   * write answers to any question id it likes into the profile and the answer counts.
   */
  readonly fromPage?: boolean;
}

/**
 * The respondent's sessions: each request reads the session from the loop store, decides its
 * next step with `@sds/routing`'s `nextSessionStep` over the live surveys and the catalogue,
 * and records what the step needs (a survey step's entry, recorded as `POST /v1/entry-links`
 * records one; the end) under the session's version, so two replicas moving one session decide
 * one after the other.
 */
export class Sessions {
  readonly #loop: LoopContext;
  readonly #inventory: SessionInventory;
  readonly #catalogue: QuestionCatalogue;
  readonly #settings: SessionSettings;
  readonly #options: SessionDecisionOptions;
  readonly #gate: QualityGate | undefined;
  readonly #clock: () => Date;
  readonly #counts = new Map<
    number,
    { readonly at: number; readonly counts: Promise<Map<number, Map<string, number>>> }
  >();

  constructor(options: {
    readonly loop: LoopContext;
    readonly inventory: SessionInventory;
    readonly catalogue: QuestionCatalogue;
    readonly settings: SessionSettings;
    /** The quality gate; none: every respondent goes on. */
    readonly gate?: QualityGate;
    readonly clock?: () => Date;
  }) {
    this.#loop = options.loop;
    this.#inventory = options.inventory;
    this.#catalogue = options.catalogue;
    this.#settings = options.settings;
    this.#options = { maxAttempts: options.settings.maxAttempts, questionSeconds: options.settings.questionSeconds };
    this.#gate = options.gate;
    this.#clock = options.clock ?? (() => new Date());
  }

  get #store() {
    return this.#loop.store;
  }

  /**
   * `POST /v1/sessions`: the quality gate judges the respondent (`ip`, `userAgent` and
   * `fingerprint` of the body), then the session is stored (with the answers passed, as the
   * respondent's profile) and its first step decided; a refused respondent's session is stored
   * done (`excluded`, with the gate's code) and answered `refused`.
   */
  async start(given: SessionBody): Promise<SessionOutcome> {
    // The address in one spelling: the gate counts and places it, the session keeps it.
    const body = given.ip === undefined ? given : { ...given, ip: canonicalAddress(given.ip) };
    const now = this.#clock();
    const checked = this.#checkAnswers(body.languageId, body.answers ?? {});
    if (!checked.ok) return { kind: "reply", reply: checked.reply };
    const id = newSessionId();
    const gate = this.#gate;
    // The rules that need no lock first: a refused flood never queues behind the locks of an admission.
    const screened =
      gate === undefined
        ? undefined
        : ((await gate.screen(body)) ?? (await this.#store.read(gate.judgeStart(body, now))));
    const ttlSeconds = this.#settings.ttlSeconds;
    const started = await this.#store.write(
      "starting a session",
      startSession({ id, body, answers: checked.answers, now, ttlSeconds }, gate, screened),
    );
    const row: SessionRow = {
      id,
      uid: body.uid,
      languageId: body.languageId,
      device: body.device ?? null,
      returnUrl: body.returnUrl ?? null,
      state: "open",
      doneReason: null,
      questionsAsked: 0,
      version: 0,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
      fingerprint: body.fingerprint ?? null,
      gate: null,
      attempts: [],
    };
    if (started.refused !== undefined) return this.#refused(row, started.refused);
    return this.#advance(id, false, row, started.respondent);
  }

  /** `GET /v1/sessions/{id}`: the session and its next step (recording the step when it is new). */
  get(id: string, explain: boolean): Promise<SessionOutcome> {
    return this.#advance(id, explain);
  }

  /**
   * `POST /v1/sessions/{id}/answers`: stores the answers (source `session`) and decides again.
   * A device fingerprint passed with them (the page's, with the first answer or before the first
   * survey) is judged by the quality gate first: a device another uid came with refuses the
   * respondent, and nothing of the answers is kept.
   */
  async answer(id: string, answers: SessionAnswers, client: SessionClient = {}): Promise<SessionOutcome> {
    const gate = this.#gate;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const read = await this.#store.read(readSessionWithRespondent(id, this.#clock()));
      if (read === undefined) return notFound(id);
      const { session: row, respondent } = read;
      if (row.state === "done") return this.#advance(id, false);
      const checked = this.#checkAnswers(row.languageId, answers, client.fromPage === true);
      if (!checked.ok) return { kind: "reply", reply: checked.reply };
      const now = this.#clock();
      const fingerprint = row.fingerprint === null ? client.fingerprint : undefined;
      const result = await this.#store.write(
        "storing a session's answers",
        answerSession(row, checked.answers, fingerprint, now, gate),
      );
      if (result === "stale") continue;
      if (result !== "stored") return this.#refused(row, result);
      // What this request just wrote is not read back: the profile with its answers, the history as read.
      return this.#advance(
        id,
        false,
        {
          ...row,
          version: row.version + 1,
          questionsAsked: row.questionsAsked + checked.answers.size,
          fingerprint: row.fingerprint ?? fingerprint ?? null,
        },
        {
          ...respondent,
          profile: withAnswers(respondent.profile, checked.answers, row.languageId, "session", now.toISOString()),
        },
      );
    }
    return busy(id);
  }

  /** `POST /v1/sessions/{id}/end`: the session is done (`ended`), unless it already was. */
  async end(id: string): Promise<SessionOutcome> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const row = await this.#store.read(readSession(id));
      if (row === undefined) return notFound(id);
      if (
        row.state === "done" ||
        (await this.#store.write("ending a session", finishSession(id, row.version, "ended")))
      )
        return this.#advance(id, false);
    }
    // Never decide a next step for a session asked to end: that could offer it another survey.
    return busy(id);
  }

  /** Reads the session, decides its next step and records what it needs; again when the session moved meanwhile. */
  /**
   * `known`: the session as this request just wrote it, and its respondent when known (its first
   * round reads only what is not); a round that ends the session hands the next one the row it wrote.
   */
  async #advance(
    id: string,
    explain: boolean,
    known?: SessionRow,
    knownRespondent?: RespondentFacts,
  ): Promise<SessionOutcome> {
    let written = known;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const read =
        written !== undefined
          ? { session: written, respondent: knownRespondent }
          : await this.#store.read(readSessionWithRespondent(id, this.#clock()));
      written = undefined;
      if (read === undefined) return notFound(id);
      const { session: row, respondent } = read;
      if (row.state === "done")
        return this.#view(row, {
          kind: "done",
          reason: doneReasonOf(row),
          ...(row.gate === null ? {} : { gate: row.gate }),
        });
      const now = this.#clock();
      if (Date.parse(row.expiresAt) <= now.getTime()) {
        written = await this.#finish(row, "expired", "expiring a session");
        continue;
      }
      const situation = await this.#situation(row, now, respondent);
      const decision = nextSessionStep(this.#inventory, situation, this.#options);
      const explanation = explain && "explanation" in decision ? decision.explanation : undefined;
      switch (decision.kind) {
        case "wait": {
          const last = row.attempts.at(-1);
          if (last === undefined) continue;
          return this.#view(
            row,
            { kind: "survey", surveyId: last.surveyId, link: last.link, token: last.token },
            explanation,
          );
        }
        case "done":
          written = await this.#finish(row, decision.reason, "ending a session");
          continue;
        case "question": {
          const detail = this.#catalogue.detail(row.languageId, decision.qualificationId);
          if (detail === undefined) continue;
          return this.#view(
            row,
            {
              kind: "question",
              qualificationId: decision.qualificationId,
              text: detail.text,
              type: detail.type,
              options: [...detail.options],
            },
            explanation,
          );
        }
        case "survey": {
          const refusal = await this.#judgeStep(row, now);
          if (refusal === "stale") continue;
          if (refusal !== undefined) return this.#refused(row, refusal);
          const offered = await this.#offer(row, decision.surveys, now);
          if (offered === "stale") continue;
          if (offered.kind === "reply") return offered;
          if (offered.kind === "none") {
            written = await this.#finish(row, "no-survey", "ending a session");
            continue;
          }
          // The step just recorded is the session's next: answered without deciding again.
          const { attempt } = offered;
          return this.#view(
            { ...row, attempts: [...row.attempts, attempt] },
            { kind: "survey", surveyId: attempt.surveyId, link: attempt.link, token: attempt.token },
            explanation,
          );
        }
      }
    }
    return busy(id);
  }

  /** Ends the session with `reason`: the row as written, else undefined when it moved meanwhile. */
  async #finish(row: SessionRow, reason: SessionDoneReason, what: string): Promise<SessionRow | undefined> {
    const finished = await this.#store.write(what, finishSession(row.id, row.version, reason));
    return finished ? { ...row, state: "done", doneReason: reason, version: row.version + 1 } : undefined;
  }

  /**
   * The quality gate before a survey step: the rules that can change while the session runs
   * (score, device). A refusal ends the session (`excluded`, with the code); `stale` when the
   * session moved meanwhile.
   */
  async #judgeStep(row: SessionRow, now: Date): Promise<GateCode | "stale" | undefined> {
    const gate = this.#gate;
    if (gate === undefined || !gate.judgesStepsOf(row)) return undefined;
    const code = await this.#store.read(gate.judgeStep(row, now));
    if (code === undefined) return undefined;
    const ended = await this.#store.write("refusing a respondent", refuseRespondent(row, code));
    return ended ? code : "stale";
  }

  /** The answer to a request that had the gate refuse the respondent: the session, done (`excluded`) with the code. */
  #refused(row: SessionRow, code: GateCode): SessionOutcome {
    this.#gate?.counted(code);
    const view = this.#view(
      { ...row, state: "done", doneReason: "excluded", gate: code },
      {
        kind: "done",
        reason: "excluded",
        gate: code,
      },
    );
    return view.kind === "session" ? { ...view, refused: code } : view;
  }

  /** Records the entry of the first survey the rules admit; `stale` when the session moved meanwhile. */
  async #offer(
    row: SessionRow,
    surveyIds: readonly number[],
    now: Date,
  ): Promise<
    | "stale"
    | { readonly kind: "issued"; readonly attempt: AttemptRow }
    | { readonly kind: "none" }
    | { readonly kind: "reply"; readonly reply: Reply }
  > {
    for (const surveyId of surveyIds) {
      const token = randomBytes(16).toString("base64url");
      const prepared = await prepareEntry(this.#loop, surveyId, token, row.uid, now);
      if (prepared.kind === "refused") {
        // The account cannot sign links: no survey can be offered now; the caller retries.
        if (prepared.reply.status === 503) return { kind: "reply", reply: prepared.reply };
        continue;
      }
      const result = await this.#store.write(
        "offering a survey",
        issueAttempt(
          this.#store.recordingSettings,
          { sessionId: row.id, version: row.version, position: row.attempts.length, link: prepared.link },
          prepared.entry,
          prepared.admit,
        ),
      );
      if (result.kind === "stale") return "stale";
      if (result.kind === "issued") {
        for (const attached of result.attached) this.#loop.outcomeNotifier.publish(attached.sequence);
        const returned = result.attached.at(-1)?.outcome ?? null;
        return {
          kind: "issued",
          attempt: {
            token,
            position: row.attempts.length,
            surveyId,
            link: prepared.link,
            issuedAt: result.issuedAt,
            returned,
            returnedAt: returned === null ? null : result.issuedAt,
          },
        };
      }
      // Refused by the rules under the respondent's lock (an entry made meanwhile), or a token clash: the next survey.
    }
    return { kind: "none" };
  }

  async #situation(row: SessionRow, now: Date, known?: RespondentFacts): Promise<SessionSituation> {
    const { profile, history } = known ?? (await this.#store.read(readRespondent(row.uid, now)));
    const horizon = now.getTime() - this.#settings.profileTtlDays * 86_400_000;
    const answers = new Map<string, readonly string[]>();
    for (const answer of profile)
      if (Date.parse(answer.answeredAt) >= horizon) answers.set(String(answer.qualificationId), answer.answers);
    const exclusions = this.#loop.liveMatcher.matcher.respondentExclusions(
      { uid: row.uid, history: history.entries, last24h: history.last24h },
      now.getTime(),
    );
    const counts = await this.#answerCounts(row.languageId, now.getTime());
    return {
      answers,
      languageId: row.languageId,
      device: row.device ?? undefined,
      attempts: row.attempts.map((attempt) => ({
        surveyId: attempt.surveyId,
        returned: attempt.returned ?? undefined,
      })),
      excluded: exclusions.surveyIds,
      capReached: exclusions.capReached,
      askable: this.#catalogue.askable(row.languageId),
      answerCounts: (qualificationId) => counts.get(qualificationId),
    };
  }

  #answerCounts(languageId: number, now: number): Promise<Map<number, Map<string, number>>> {
    const cached = this.#counts.get(languageId);
    if (cached !== undefined && now - cached.at < COUNTS_TTL_MS) return cached.counts;
    const counts = this.#store.read(answerCounts(languageId));
    this.#counts.set(languageId, { at: now, counts });
    counts.catch(() => this.#counts.delete(languageId));
    return counts;
  }

  /**
   * Answers as stored: option codes as strings. A question of the catalogue in the session's
   * language takes only its options (one for a single choice), a number for a numeric one;
   * `catalogueOnly` (the respondent's page) refuses any other question.
   */
  #checkAnswers(
    languageId: number,
    answers: SessionAnswers,
    catalogueOnly = false,
  ): { ok: true; answers: Map<number, string[]> } | { ok: false; reply: Reply } {
    const checked = new Map<number, string[]>();
    for (const [key, value] of Object.entries(answers)) {
      const qualificationId = Number(key);
      const given = (Array.isArray(value) ? value : [value]).map(String);
      const detail = this.#catalogue.detail(languageId, qualificationId);
      const problem =
        detail === undefined
          ? catalogueOnly
            ? "not a question this session asks"
            : undefined
          : answerProblem(detail, given);
      if (problem !== undefined)
        return { ok: false, reply: errorReply(400, "bad_request", `answers.${key}: ${problem} (question ${key})`) };
      if (given.length === 0)
        return { ok: false, reply: errorReply(400, "bad_request", `answers.${key}: no answer (question ${key})`) };
      checked.set(qualificationId, given);
    }
    return { ok: true, answers: checked };
  }

  #view(row: SessionRow, next: SessionStep, explanation?: DecisionExplanation): SessionOutcome {
    return {
      kind: "session",
      session: {
        id: row.id,
        uid: row.uid,
        languageId: row.languageId,
        state: next.kind === "done" ? "done" : "open",
        questionsAsked: row.questionsAsked,
        attempts: row.attempts.map((attempt) => ({
          surveyId: attempt.surveyId,
          token: attempt.token,
          issuedAt: attempt.issuedAt,
          ...(attempt.returned === null ? {} : { returned: attempt.returned }),
          ...(attempt.returnedAt === null ? {} : { returnedAt: attempt.returnedAt }),
        })),
        next,
        ...(explanation === undefined ? {} : { explanation }),
      },
    };
  }
}

function answerProblem(
  detail: { readonly type: string; readonly options: readonly { readonly code: string }[] },
  given: readonly string[],
): string | undefined {
  switch (detail.type) {
    case "numeric":
      return given.length === 1 && /^-?\d+(\.\d+)?$/.test(given[0] ?? "")
        ? undefined
        : "a numeric question takes one number";
    case "text":
      return given.length === 1 ? undefined : "a text question takes one answer";
    default: {
      const codes = new Set(detail.options.map((option) => option.code));
      const wrong = given.find((code) => !codes.has(code));
      if (wrong !== undefined) return `${JSON.stringify(wrong)} is not one of its options (${[...codes].join(", ")})`;
      if (detail.type === "single" && given.length !== 1) return "a single-choice question takes one option";
      return undefined;
    }
  }
}

/**
 * A new session's id: 144 random bits, URL-safe, led by a letter. A base64url id starts with `-`
 * one time in 64, and a command line then takes it for an option (`sds sessions show -8Jq…`).
 */
export function newSessionId(): string {
  return `s${randomBytes(18).toString("base64url")}`;
}

/** A done session's reason; every write that ends a session stores one, so a missing one is a broken store. */
function doneReasonOf(row: SessionRow): SessionDoneReason {
  if (row.doneReason === null) throw new StoreError(`session ${row.id.slice(0, 64)} is done without a reason`);
  return row.doneReason;
}

function notFound(id: string): SessionOutcome {
  return { kind: "reply", reply: errorReply(404, "not_found", `no session ${JSON.stringify(id.slice(0, 64))}`) };
}

function busy(id: string): SessionOutcome {
  return {
    kind: "reply",
    reply: errorReply(503, "session_busy", `session ${id.slice(0, 64)} kept moving while it was decided; retry`, {
      "retry-after": "1",
    }),
  };
}
