import type { SyncRequestOptions } from "../client-options.ts";
import { followFeed, type FollowParams } from "../internal/follow-feed.ts";
import { queryOf } from "../internal/query.ts";
import type { SyncTransport } from "../internal/transport.ts";
import type { FeedQueryParams } from "../schemas/feed.ts";
import { OutcomePage, ReconcileBody, Reconciled, type Outcome } from "../schemas/outcomes.ts";

/** Options of {@link Outcomes.reconcile}: a call's options, and the batch's idempotency key. */
export interface ReconcileOptions extends SyncRequestOptions {
  /**
   * Sent as the `Idempotency-Key` header: sds-sync applies the batch once per key (kept 7 days by default)
   * and answers a repeat of the same body with the first answer (`replayed: true`), and another
   * body under the key with 422 `idempotency_key_reused`. With a key, a recording call is safe to
   * repeat, so it is retried like any other (on 5xx, 408, 429, network failures and attempt
   * timeouts), with the same key. Derive it from what the batch is (a report's name and the
   * batch's place in it), not from the time it is sent.
   */
  readonly idempotencyKey?: string | undefined;
}

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
   * with its reason (at most 1,000 lines a call). Lines apply in order, all in one transaction:
   * an error means none was recorded. With `dryRun: true` nothing is recorded and each line says
   * what it would do. A recording call is retried only with an `idempotencyKey` (without one,
   * sending the lines twice would record them twice); a dry run always is.
   *
   * @example
   * ```ts
   * const { changed, results } = await sync.outcomes.reconcile(
   *   { outcomes: [{ token: "t-8f2c", outcome: "terminate", reason: "quality" }] },
   *   { idempotencyKey: "report-2026-12-06:1" },
   * );
   * ```
   */
  async reconcile(body: ReconcileBody, options: ReconcileOptions = {}): Promise<Reconciled> {
    const { idempotencyKey, ...callOptions } = options;
    const answer = await this.#transport.request(
      {
        operation: "reconcileOutcomes",
        method: "POST",
        path: "/v1/outcomes/reconcile",
        body: { value: body, schema: ReconcileBody },
        response: Reconciled,
        idempotent: body.dryRun === true || idempotencyKey !== undefined,
      },
      idempotencyKey === undefined
        ? callOptions
        : { ...callOptions, headers: { ...callOptions.headers, "Idempotency-Key": idempotencyKey } },
    );
    return answer.data;
  }
}
