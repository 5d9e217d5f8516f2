import type { FeedEvent } from "./feed-events.ts";

/** What one {@link EventSink.deliver} achieved: the events acknowledged (always a prefix), and why the rest were not. */
export interface DeliveryReport {
  /** How many of the events, from the first, the sink acknowledged. */
  readonly delivered: number;
  /** Set when fewer than all were acknowledged: what went wrong (no secrets in it). */
  readonly error?: string;
}

/**
 * Where events go: JetStream, or one webhook endpoint. The relay hands each sink the events of
 * one feed in sequence order and stores how far it got; the sink only delivers.
 */
export interface EventSink {
  /** `nats` or `webhook:<name>`: the `sink` label, the key of its stored positions. */
  readonly name: string;
  readonly kind: "nats" | "webhook";
  /** Events read per batch. */
  readonly batchSize: number;
  /** Longest pause between two attempts after failures. */
  readonly maxBackoffMs: number;
  /** Whether the sink wants this event (a webhook's subject filter); others are passed over, not delivered. */
  accepts(event: FeedEvent): boolean;
  /** Delivers `events` in order, stopping at the first that fails. Never rejects. */
  deliver(events: readonly FeedEvent[], signal: AbortSignal): Promise<DeliveryReport>;
  close(): Promise<void>;
}
