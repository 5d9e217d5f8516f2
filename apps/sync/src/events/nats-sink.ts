import { readFileSync } from "node:fs";
import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  type JetStreamClient,
} from "@nats-io/jetstream";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { DeliveryReport, EventSink } from "./event-sink.ts";
import type { FeedEvent } from "./feed-events.ts";

/** Longest pause between two attempts while NATS is unreachable. */
const MAX_BACKOFF_MS = 30_000;
/** How long one publish waits for JetStream's acknowledgement. */
const PUBLISH_TIMEOUT_MS = 5000;
/** JetStream's refusal of a message whose `Nats-Expected-Last-Msg-Id` is not the stream's last message id. */
const WRONG_LAST_MSG_ID = 10070;

/** Options of {@link NatsSink}. */
export interface NatsSinkOptions {
  /** `SYNC_NATS_URL`, user and password included. */
  readonly url: URL;
  /** `SYNC_NATS_CREDS`: a `.creds` file. */
  readonly credsFile?: string | undefined;
  /** `SYNC_NATS_SUBJECT_PREFIX`. */
  readonly subjectPrefix: string;
  /** `SYNC_NATS_STREAM`. */
  readonly stream: string;
  readonly maxAgeSeconds: number;
  readonly replicas: number;
  readonly logger: Logger;
  /** How long one publish waits for its acknowledgement. @default 5000 */
  readonly publishTimeoutMs?: number;
}

function isWrongLastMsgId(error: Error): boolean {
  return error instanceof JetStreamApiError && error.code === WRONG_LAST_MSG_ID;
}

/** Nanoseconds, JetStream's unit of time. */
const nanos = (seconds: number) => seconds * 1_000_000_000;

/**
 * NATS JetStream: every event goes to `<prefix>.<subject>` with `Nats-Msg-Id` = its id, so
 * JetStream drops a second copy (a retry, a new leader repeating the last batch) within the
 * stream's duplicate window. A batch is published pipelined and counts as delivered up to the
 * first publish that was not acknowledged. Connects on first use and creates the stream if it is
 * missing; an existing stream's configuration is never changed.
 *
 * Order: with up to a batch in flight, a message lost across a reconnect (written to the dying
 * connection) could be followed by the next one, sent on the new connection and stored. So each
 * message but the first of a round carries `Nats-Expected-Last-Msg-Id` = the previous event's
 * id: JetStream stores it only right after its predecessor, and refuses it (and so everything
 * after it) when the predecessor is missing. The first needs no condition: the relay hands over
 * a batch only from the first event not acknowledged, so everything before it is stored. The two
 * feeds' batches go out one after the other ({@link #deliveries}), so the other feed's messages
 * never come between two conditioned ones; a refusal after progress (the previous was a
 * duplicate, already stored earlier, or another publisher wrote to the stream) starts a new round
 * from the refused event.
 */
export class NatsSink implements EventSink {
  readonly name = "nats";
  readonly kind = "nats" as const;
  readonly batchSize = 1000;
  readonly maxBackoffMs = MAX_BACKOFF_MS;
  readonly #options: NatsSinkOptions;
  #connection: NatsConnection | undefined;
  #client: Promise<JetStreamClient> | undefined;
  /** The delivery in progress: one batch at a time, whichever feed it is of. */
  #deliveries: Promise<unknown> = Promise.resolve();

  constructor(options: NatsSinkOptions) {
    this.#options = options;
  }

  accepts(): boolean {
    return true;
  }

  deliver(events: readonly FeedEvent[]): Promise<DeliveryReport> {
    const delivery = this.#deliveries.then(() => this.#deliverNow(events));
    this.#deliveries = delivery.catch(() => undefined);
    return delivery;
  }

  async #deliverNow(events: readonly FeedEvent[]): Promise<DeliveryReport> {
    let client: JetStreamClient;
    try {
      client = await this.#ready();
    } catch (error) {
      this.#client = undefined;
      return { delivered: 0, error: `cannot reach NATS JetStream: ${(error as Error).message}` };
    }
    let delivered = 0;
    while (delivered < events.length) {
      const round = events.slice(delivered);
      const failed = await this.#publishRound(client, round);
      if (failed === undefined) return { delivered: events.length };
      delivered += failed.index;
      // Refused for its condition after progress: its predecessor is stored; a new round starts with it.
      if (failed.index > 0 && isWrongLastMsgId(failed.reason)) continue;
      return { delivered, error: `publish not acknowledged: ${failed.reason.message}` };
    }
    return { delivered };
  }

  /** Publishes `round` pipelined, each but the first expecting its predecessor last; the first not acknowledged. */
  async #publishRound(
    client: JetStreamClient,
    round: readonly FeedEvent[],
  ): Promise<{ readonly index: number; readonly reason: Error } | undefined> {
    const { subjectPrefix, publishTimeoutMs = PUBLISH_TIMEOUT_MS } = this.#options;
    const acks = await Promise.allSettled(
      round.map((event, index) => {
        const previous = round[index - 1];
        return client.publish(`${subjectPrefix}.${event.subject}`, event.body, {
          msgID: event.id,
          timeout: publishTimeoutMs,
          ...(previous === undefined ? {} : { expect: { lastMsgID: previous.id } }),
        });
      }),
    );
    const index = acks.findIndex((ack) => ack.status === "rejected");
    if (index === -1) return undefined;
    return { index, reason: (acks[index] as PromiseRejectedResult).reason as Error };
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    this.#client = undefined;
    await connection?.close().catch(() => undefined);
  }

  #ready(): Promise<JetStreamClient> {
    this.#client ??= this.#connect();
    return this.#client;
  }

  async #connect(): Promise<JetStreamClient> {
    const { url, credsFile, logger } = this.#options;
    if (this.#connection === undefined || this.#connection.isClosed()) {
      this.#connection = await connect({
        servers: `${url.protocol === "tls:" ? "tls://" : ""}${url.host}`,
        name: "sds-sync",
        // The client reconnects by itself; the relay retries what was not acknowledged meanwhile.
        maxReconnectAttempts: -1,
        reconnectTimeWait: 1000,
        timeout: 5000,
        // Otherwise every publish builds two Error objects (their stacks) for a timeout that rarely comes:
        // 1.6 % of sds-sync's samples in a flood of outcomes; the relay logs an error's message only.
        noAsyncTraces: true,
        ...(url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : {}),
        ...(credsFile === undefined ? {} : { authenticator: credsAuthenticator(() => readFileSync(credsFile)) }),
      });
      logger.info({ server: url.host }, "events: connected to NATS");
    }
    await this.#ensureStream(this.#connection);
    return jetstream(this.#connection);
  }

  /** Creates the stream when it is missing; an existing one is left exactly as it is. */
  async #ensureStream(connection: NatsConnection): Promise<void> {
    const { stream, subjectPrefix, maxAgeSeconds, replicas, logger } = this.#options;
    const manager = await jetstreamManager(connection);
    try {
      await manager.streams.info(stream);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
      await manager.streams.add({
        name: stream,
        subjects: [`${subjectPrefix}.>`],
        retention: RetentionPolicy.Limits,
        max_age: nanos(maxAgeSeconds),
        num_replicas: replicas,
      });
      logger.info({ stream, subjects: `${subjectPrefix}.>` }, "events: created the JetStream stream");
    }
  }
}
