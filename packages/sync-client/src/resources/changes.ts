import type { SyncRequestOptions } from "../client-options.ts";
import { followFeed, type FollowParams } from "../internal/follow-feed.ts";
import { queryOf } from "../internal/query.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { ChangePage, type Change, type FeedQueryParams } from "../schemas/feed.ts";

/** The change feed of the stored inventory. */
export class Changes {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `GET /v1/changes`: changes after a sequence, in order; with `wait`, long-polls until one
   * arrives. @throws SyncGoneError (`feed_expired`) when `after` was pruned: list the surveys again.
   */
  async list(query: FeedQueryParams = {}, options: SyncRequestOptions = {}): Promise<ChangePage> {
    const answer = await this.#transport.request(
      {
        operation: "listChanges",
        method: "GET",
        path: "/v1/changes",
        query: queryOf(query),
        response: ChangePage,
        idempotent: true,
        extraTimeout: (query.wait ?? 0) * 1000,
      },
      options,
    );
    return answer.data;
  }

  /** Follows the change feed for ever, from `after`: each change once, in order, long-polling at the end. */
  follow(params: FollowParams = {}, options: SyncRequestOptions = {}): AsyncGenerator<Change, void, undefined> {
    return followFeed(
      async (query, callOptions) => {
        const page = await this.list(query, callOptions);
        return { entries: page.changes, next: page.next };
      },
      params,
      options,
    );
  }
}
