import { z } from "zod";

/*
 * Events out (sds-sync's relay of the outcome and change feeds to NATS JetStream and webhooks):
 * where each sink stands, and the operator's resume of a failing webhook.
 */

/** Where one sink of events out stands in one feed. */
export const EventSinkStatus = z.object({
  sink: z.string().describe("`nats`, or `webhook:<name>`."),
  feed: z.enum(["outcomes", "changes"]),
  position: z.int().nullable().describe("The last sequence the sink acknowledged; null before the relay first ran."),
  latest: z.int(),
  lagRecords: z.int(),
  lagSeconds: z.number(),
  oldestPendingAt: z.string().nullable(),
  failingSince: z.string().nullable(),
  lastError: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
/** Where one sink of events out stands in one feed. */
export type EventSinkStatus = z.output<typeof EventSinkStatus>;

/** `GET /v1/events`: every sink and feed of events out, read from the store. */
export const EventsStatus = z.object({
  leader: z.boolean().describe("Whether this replica runs the relay."),
  sinks: z.array(EventSinkStatus),
});
/** `GET /v1/events`. */
export type EventsStatus = z.output<typeof EventsStatus>;

/** `POST /v1/webhooks/{name}/resume`: delivery to the endpoint is retried now, from where it stopped. */
export const WebhookResumed = z.object({ webhook: z.string(), resumed: z.literal(true) });
/** `POST /v1/webhooks/{name}/resume`. */
export type WebhookResumed = z.output<typeof WebhookResumed>;
