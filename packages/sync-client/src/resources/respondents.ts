import type { SyncRequestOptions } from "../client-options.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { HistoryBody, HistoryImported } from "../schemas/history.ts";

/** Respondents' history. */
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
}
