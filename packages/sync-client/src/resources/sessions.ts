import type { SyncRequestOptions } from "../client-options.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { Session, SessionAnswersBody, SessionBody, type SessionAnswers } from "../schemas/sessions.ts";

/** The query of `GET /v1/sessions/{id}`. */
export interface SessionGetParams {
  /** Add `explanation`: the questions considered with their expected gain, the top surveys with their estimates. @default false */
  readonly explain?: boolean | undefined;
}

/** The path of one session, its id encoded. */
function sessionPath(id: string, tail = ""): string {
  return `/v1/sessions/${encodeURIComponent(id)}${tail}`;
}

/**
 * The respondent's session: sds-sync asks what pays, offers a survey, takes the respondent back
 * and re-routes after a terminate. Each answer carries the session's `next` step: a question to
 * ask, a survey to send the respondent to, or done with its reason.
 */
export class Sessions {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `POST /v1/sessions`: begins a respondent's session and answers its first step. Never
   * retried: a second attempt after a lost answer would begin a second session (and may record
   * a second entry); on a failure, read the respondent's state before starting again.
   *
   * @example
   * ```ts
   * const session = await sync.sessions.create({ uid: "r-91", languageId: 3, returnUrl: "https://panel.example/back" });
   * if (session.next.kind === "survey") redirect(session.next.link);
   * ```
   */
  async create(body: SessionBody, options: SyncRequestOptions = {}): Promise<Session> {
    const answer = await this.#transport.request(
      {
        operation: "startSession",
        method: "POST",
        path: "/v1/sessions",
        body: { value: body, schema: SessionBody },
        response: Session,
        idempotent: false,
      },
      options,
    );
    return answer.data;
  }

  /**
   * `GET /v1/sessions/{id}`: the session and its next step (a survey step stays while its
   * return is awaited). Safe to retry.
   *
   * @throws SyncNotFoundError for an unknown session.
   * @example
   * ```ts
   * const { next, explanation } = await sync.sessions.get(sessionId, { explain: true });
   * ```
   */
  async get(id: string, params: SessionGetParams = {}, options: SyncRequestOptions = {}): Promise<Session> {
    const answer = await this.#transport.request(
      {
        operation: "getSession",
        method: "GET",
        path: sessionPath(id),
        query: params.explain === true ? new URLSearchParams({ explain: "1" }) : undefined,
        response: Session,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }

  /**
   * `POST /v1/sessions/{id}/answers`: the respondent's answers to the question step (kept in
   * their profile); the session with a new next step. Never retried: after a lost answer the
   * session may already have moved on; read it with {@link Sessions.get} instead.
   *
   * @throws SyncBadRequestError when an answer does not fit its question's options; SyncNotFoundError for an unknown session.
   * @example
   * ```ts
   * const { next } = await sync.sessions.answer(sessionId, { "43": ["2"] });
   * ```
   */
  async answer(id: string, answers: SessionAnswers, options: SyncRequestOptions = {}): Promise<Session> {
    const answer = await this.#transport.request(
      {
        operation: "answerSession",
        method: "POST",
        path: sessionPath(id, "/answers"),
        body: { value: { answers } satisfies SessionAnswersBody, schema: SessionAnswersBody },
        response: Session,
        idempotent: false,
      },
      options,
    );
    return answer.data;
  }

  /**
   * `POST /v1/sessions/{id}/end`: ends the session (done, `ended`). Safe to retry: ending an
   * ended session answers it as it is.
   *
   * @throws SyncNotFoundError for an unknown session.
   */
  async end(id: string, options: SyncRequestOptions = {}): Promise<Session> {
    const answer = await this.#transport.request(
      { operation: "endSession", method: "POST", path: sessionPath(id, "/end"), response: Session, idempotent: true },
      options,
    );
    return answer.data;
  }
}
