import type { SyncRequestOptions } from "../client-options.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { EntryLink, EntryLinkBody } from "../schemas/entry-links.ts";

/** An entry link as issued, and whether this call issued it. */
export type IssuedEntryLink = EntryLink & {
  /** true for a new entry (HTTP 201); false for a repeat of the same token, answered with the same link (200). */
  readonly created: boolean;
};

/** Entry links: a respondent's way into a live survey, recorded as an entry. */
export class EntryLinks {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `POST /v1/entry-links`: the entry link of a live survey for one respondent, placeholders
   * filled and signed when the account says so, recorded as an entry. Retried safely: a repeat
   * of the same token answers the same link.
   *
   * @throws SyncNotFoundError when the survey is not live; SyncConflictError (`token_in_use`,
   * `respondent_excluded`, `survey_unroutable`); SyncApiError 422 (`unusable_survey_url`).
   * @example
   * ```ts
   * const { link } = await sync.entryLinks.create({ surveyId: 42, token: crypto.randomUUID(), uid: "r-91" });
   * ```
   */
  async create(body: EntryLinkBody, options: SyncRequestOptions = {}): Promise<IssuedEntryLink> {
    const answer = await this.#transport.request(
      {
        operation: "issueEntryLink",
        method: "POST",
        path: "/v1/entry-links",
        body: { value: body, schema: EntryLinkBody },
        response: EntryLink,
        idempotent: true,
      },
      options,
    );
    return { ...answer.data, created: answer.status === 201 };
  }
}
