import { z } from "zod";

/** Default and largest page size of the two feeds, `GET /v1/changes` and `GET /v1/outcomes`. */
export const FEED_PAGE = { default: 100, max: 1000 } as const;

/** Longest `wait` of a feed's long-poll, in seconds: beyond it proxies tend to cut idle requests. */
export const MAX_WAIT_SECONDS = 60;

/** The query of a feed (`GET /v1/changes`, `GET /v1/outcomes`), with its defaults. */
export const FeedQuery = z.object({
  after: z.int().min(0).default(0).describe("Sequence number: the entries after it."),
  limit: z.int().min(1).max(FEED_PAGE.max).default(FEED_PAGE.default).describe("Page size."),
  wait: z.int().min(0).max(MAX_WAIT_SECONDS).default(0).describe("Seconds to long-poll when nothing follows `after`."),
});
/** The query of a feed as sent: every field optional. */
export type FeedQueryParams = z.input<typeof FeedQuery>;

/** Kinds of change in the change feed. */
export const changeTypes = [
  "opened",
  "updated",
  "qualifications_changed",
  "quotas_changed",
  "closed",
  "reopened",
] as const;
/** One of {@link changeTypes}. */
export type ChangeType = (typeof changeTypes)[number];

/** One entry of the change feed. */
export const Change = z.object({
  sequence: z.int(),
  type: z.enum(changeTypes),
  surveyId: z.int(),
  runId: z.int(),
  occurredAt: z.string(),
});
/** One entry of the change feed. */
export type Change = z.output<typeof Change>;

/** `GET /v1/changes`. */
export const ChangePage = z.object({ changes: z.array(Change), next: z.int(), hasMore: z.boolean() });
/** `GET /v1/changes`. */
export type ChangePage = z.output<typeof ChangePage>;
