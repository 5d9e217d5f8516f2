import type { SyncRequestOptions } from "../client-options.ts";
import { FEED_PAGE } from "../schemas/feed.ts";

/** Where a follow starts and how it long-polls. */
export interface FollowParams {
  /** The sequence to follow after: the last one already handled. @default 0 */
  readonly after?: number | undefined;
  /** Page size. @default 100 */
  readonly limit?: number | undefined;
  /** Seconds each request long-polls when nothing follows (at most 60). @default 30 */
  readonly wait?: number | undefined;
}

/** The default long-poll of a follow, in seconds: well inside the proxies' idle limits. */
export const DEFAULT_FOLLOW_WAIT_SECONDS = 30;

/**
 * Reads a feed page after page for ever, long-polling when it is at the end, and yields each
 * entry in order. Ends only when the consumer stops (`break`) or a call fails (its error,
 * retries done, is thrown; `options.signal` aborts it with a `SyncAbortedError`).
 */
export async function* followFeed<Item>(
  readPage: (
    query: { readonly after: number; readonly limit: number; readonly wait: number },
    options: SyncRequestOptions,
  ) => Promise<{ readonly entries: readonly Item[]; readonly next: number }>,
  params: FollowParams,
  options: SyncRequestOptions,
): AsyncGenerator<Item, void, undefined> {
  let after = params.after ?? 0;
  const limit = params.limit ?? FEED_PAGE.default;
  const wait = params.wait ?? DEFAULT_FOLLOW_WAIT_SECONDS;
  for (;;) {
    const page = await readPage({ after, limit, wait }, options);
    for (const entry of page.entries) yield entry;
    after = page.next;
  }
}
