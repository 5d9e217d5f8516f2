import type { SyncRequestOptions } from "../client-options.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { EventsStatus, WebhookResumed } from "../schemas/events.ts";

/**
 * Events out: sds-sync's relay of the outcome and change feeds to NATS JetStream and webhook
 * endpoints (`SYNC_NATS_URL`, `SYNC_WEBHOOK_URLS`), where each sink stands and the operator's
 * resume of an endpoint that failed.
 */
export class Events {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `GET /v1/events`: where every sink stands in each feed (its position, lag, last error), read
   * from the store, and whether this replica runs the relay. Safe to retry.
   *
   * @example
   * ```ts
   * const { sinks } = await sync.events.status();
   * for (const sink of sinks) if (sink.failingSince !== null) console.warn(`${sink.sink}: ${sink.lastError}`);
   * ```
   */
  async status(options: SyncRequestOptions = {}): Promise<EventsStatus> {
    const answer = await this.#transport.request(
      { operation: "eventsStatus", method: "GET", path: "/v1/events", response: EventsStatus, idempotent: true },
      options,
    );
    return answer.data;
  }

  /**
   * `POST /v1/webhooks/{name}/resume`: retries the endpoint's held events now, from where
   * delivery stopped, instead of at its next back-off. On the leader only. Safe to retry: a
   * second resume of an endpoint already resumed changes nothing.
   *
   * @param name The endpoint's name in `SYNC_WEBHOOK_URLS`.
   * @throws SyncNotFoundError when no endpoint has that name; SyncConflictError (`not_leader`) on a replica that does not lead.
   * @example
   * ```ts
   * await sync.events.resumeWebhook("back-office");
   * ```
   */
  async resumeWebhook(name: string, options: SyncRequestOptions = {}): Promise<WebhookResumed> {
    const answer = await this.#transport.request(
      {
        operation: "resumeWebhook",
        method: "POST",
        path: `/v1/webhooks/${encodeURIComponent(name)}/resume`,
        response: WebhookResumed,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }
}
