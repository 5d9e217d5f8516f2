import type { SyncRequestOptions } from "../client-options.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { HistoryBody, HistoryImported } from "../schemas/history.ts";
import { Profile, ProfileErased } from "../schemas/sessions.ts";

/** The path of one respondent's profile, the uid encoded. */
function profilePath(uid: string): string {
  return `/v1/respondents/${encodeURIComponent(uid)}/profile`;
}

/** Respondents' history and profiles. */
export class Respondents {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `POST /v1/respondents/history`: entries respondents made elsewhere (at most 1,000 a call),
   * so routing keeps them out of surveys they entered and those surveys' groups. Idempotent
   * per (uid, survey, time): safe to retry and to send again.
   *
   * @example
   * ```ts
   * await sync.respondents.importHistory({ entries: [{ uid: "r-91", surveyId: 42, enteredAt: "2026-01-05T10:00:00Z" }] });
   * ```
   */
  async importHistory(body: HistoryBody, options: SyncRequestOptions = {}): Promise<HistoryImported> {
    const answer = await this.#transport.request(
      {
        operation: "importHistory",
        method: "POST",
        path: "/v1/respondents/history",
        body: { value: body, schema: HistoryBody },
        response: HistoryImported,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }

  /**
   * `GET /v1/respondents/{uid}/profile`: the respondent's stored answers, with when and how each
   * came (`session`, `api`, `import`). An unknown uid has an empty profile. Safe to retry.
   *
   * @example
   * ```ts
   * const { answers } = await sync.respondents.profile("r-91");
   * ```
   */
  async profile(uid: string, options: SyncRequestOptions = {}): Promise<Profile> {
    const answer = await this.#transport.request(
      { operation: "readProfile", method: "GET", path: profilePath(uid), response: Profile, idempotent: true },
      options,
    );
    return answer.data;
  }

  /**
   * `DELETE /v1/respondents/{uid}/profile`: erases the respondent's stored answers (the right to
   * erasure); their entries stay, as the buyer's exclusion record. Safe to retry: a retry after a
   * lost answer erases nothing more and says `erased: 0`.
   */
  async eraseProfile(uid: string, options: SyncRequestOptions = {}): Promise<ProfileErased> {
    const answer = await this.#transport.request(
      {
        operation: "eraseProfile",
        method: "DELETE",
        path: profilePath(uid),
        response: ProfileErased,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }
}
