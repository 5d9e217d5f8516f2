import type { SyncRequestOptions } from "../client-options.ts";
import { followFeed, type FollowParams } from "../internal/follow-feed.ts";
import { queryOf } from "../internal/query.ts";
import type { SyncTransport } from "../internal/transport.ts";
import type { FeedQueryParams } from "../schemas/feed.ts";
import { OutcomePage, ReconcileBody, Reconciled, type Outcome } from "../schemas/outcomes.ts";

/** The outcome feed and reconciliation. */
export class Outcomes {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `GET /v1/outcomes`: recorded outcomes after a sequence, in order; with `wait`, long-polls
   * until one arrives. @throws SyncGoneError (`outcomes_expired`) when `after` was pruned.
   *
   * @example
   * ```ts
   * const { outcomes, next, hasMore } = await sync.outcomes.list({ after: 0, limit: 500 });
   * ```
   */
  async list(query: FeedQueryParams = {}, options: SyncRequestOptions = {}): Promise<OutcomePage> {
    const answer = await this.#transport.request(
      {
        operation: "listOutcomes",
        method: "GET",
        path: "/v1/outcomes",
        query: queryOf(query),
        response: OutcomePage,
        idempotent: true,
        extraTimeout: (query.wait ?? 0) * 1000,
      },
      options,
    );
    return answer.data;
  }

  /**
   * Follows the outcome feed for ever, from `after`: each outcome once, in order, long-polling
   * at the end. Remember the last `sequence` handled and start there next time.
   *
   * @example
   * ```ts
   * for await (const outcome of sync.outcomes.follow({ after: lastSeen }, { signal })) {
   *   await credit(outcome);
   *   lastSeen = outcome.sequence;
   * }
   * ```
   */
  follow(params: FollowParams = {}, options: SyncRequestOptions = {}): AsyncGenerator<Outcome, void, undefined> {
    return followFeed(
      async (query, callOptions) => {
        const page = await this.list(query, callOptions);
        return { entries: page.outcomes, next: page.next };
      },
      params,
      options,
    );
  }

  /**
   * `POST /v1/outcomes/reconcile`: the marketplace's corrections, each recorded as a transition
   * with its reason (at most 1,000 lines a call). Lines apply in order. With `dryRun: true`
   * nothing is recorded and each line says what it would do. A recording call is never retried
   * (sending the lines twice could record other transitions); a dry run is.
   *
   * @example
   * ```ts
   * const { changed, results } = await sync.outcomes.reconcile({
   *   outcomes: [{ token: "t-8f2c", outcome: "terminate", reason: "quality" }],
   * });
   * ```
   */
  async reconcile(body: ReconcileBody, options: SyncRequestOptions = {}): Promise<Reconciled> {
    const answer = await this.#transport.request(
      {
        operation: "reconcileOutcomes",
        method: "POST",
        path: "/v1/outcomes/reconcile",
        body: { value: body, schema: ReconcileBody },
        response: Reconciled,
        idempotent: body.dryRun === true,
      },
      options,
    );
    return answer.data;
  }
}
