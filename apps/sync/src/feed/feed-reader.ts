import type { ChangeNotifier } from "./change-notifier.ts";
import type { FeedQuery } from "./feed-query.ts";

/** A feed as its reader sees it: entries after a sequence, the pruning horizon and the notifier that wakes waiting readers. */
export interface Feed<Entry> {
  /** Entries with a sequence above `after`, oldest first, at most `limit`. */
  list(after: number, limit: number): Promise<Entry[]>;
  /** The sequence the kept entries start after: entries up to it were pruned. */
  horizon(): Promise<number>;
  readonly notifier: ChangeNotifier;
}

/** What a read found: a page of entries, or that the entries after `after` were pruned (up to `horizon`). */
export type FeedRead<Entry> =
  { readonly kind: "page"; readonly entries: Entry[] } | { readonly kind: "expired"; readonly horizon: number };

/**
 * The one long-poll protocol of both feeds (changes and outcomes): read the entries after
 * `after`; when there are none and the reader may wait, wait for a newer sequence (or the
 * timeout, or the reader leaving) and read once more. The horizon is read after the entries:
 * pruning only ever raises it, so a read that the horizon does not pass was complete.
 */
export async function readFeed<Entry>(
  feed: Feed<Entry>,
  query: FeedQuery,
  signal: AbortSignal,
): Promise<FeedRead<Entry>> {
  let read = await readOnce(feed, query);
  if (read.kind === "page" && read.entries.length === 0 && query.waitSeconds > 0) {
    await feed.notifier.waitForSequenceAbove(query.after, query.waitSeconds * 1000, signal);
    read = await readOnce(feed, query);
  }
  return read;
}

async function readOnce<Entry>(feed: Feed<Entry>, query: FeedQuery): Promise<FeedRead<Entry>> {
  const entries = await feed.list(query.after, query.limit);
  const horizon = await feed.horizon();
  return query.after >= horizon ? { kind: "page", entries } : { kind: "expired", horizon };
}
