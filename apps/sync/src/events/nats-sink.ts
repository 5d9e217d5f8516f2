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
}

/** Nanoseconds, JetStream's unit of time. */
const nanos = (seconds: number) => seconds * 1_000_000_000;

/**
 * NATS JetStream: every event goes to `<prefix>.<subject>` with `Nats-Msg-Id` = its id, so
 * JetStream drops a second copy (a retry, a new leader repeating the last batch) within the
 * stream's duplicate window. A batch is published pipelined on one connection (JetStream stores
 * a connection's messages in the order sent) and counts as delivered up to the first publish
 * that was not acknowledged. Connects on first use and creates the stream if it is missing; an
 * existing stream's configuration is never changed.
 */
export class NatsSink implements EventSink {
  readonly name = "nats";
  readonly kind = "nats" as const;
  readonly batchSize = 1000;
  readonly maxBackoffMs = MAX_BACKOFF_MS;
  readonly #options: NatsSinkOptions;
  #connection: NatsConnection | undefined;
  #client: Promise<JetStreamClient> | undefined;

  constructor(options: NatsSinkOptions) {
    this.#options = options;
  }

  accepts(): boolean {
    return true;
  }

  async deliver(events: readonly FeedEvent[]): Promise<DeliveryReport> {
    let client: JetStreamClient;
    try {
      client = await this.#ready();
    } catch (error) {
      this.#client = undefined;
      return { delivered: 0, error: `cannot reach NATS JetStream: ${(error as Error).message}` };
    }
    const prefix = this.#options.subjectPrefix;
    const acks = await Promise.allSettled(
      events.map((event) =>
        client.publish(`${prefix}.${event.subject}`, event.body, { msgID: event.id, timeout: PUBLISH_TIMEOUT_MS }),
      ),
    );
    const failed = acks.findIndex((ack) => ack.status === "rejected");
    if (failed === -1) return { delivered: events.length };
    const reason = (acks[failed] as PromiseRejectedResult).reason as Error;
    return { delivered: failed, error: `publish not acknowledged: ${reason.message}` };
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
