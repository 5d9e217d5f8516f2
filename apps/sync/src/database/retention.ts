/*
 * Retention both stores share: a batch's outcome, and a feed (`changes`, `loop_outcomes`) pruned as
 * a prefix so it never has a hole.
 */

/** What one `pruneBatch` of a store did. */
export interface PruneBatchOutcome {
  /** Rows deleted. */
  readonly deleted: number;
  /** Older rows may remain beyond this batch: call again. */
  readonly more: boolean;
  /**
   * Nothing was tried because the store's one writer is inside a cycle's transaction (SQLite):
   * try again once the cycle is over.
   */
  readonly deferred: boolean;
}

/** A row at the head of the feed or of the run records, oldest first. */
export interface HeadRow {
  readonly id: number;
  readonly at: Date;
}

/**
 * The highest id of the leading rows of `head` (oldest first) that are older than `before`,
 * skipping `keep`; `null` when the first row is already young. Deleting every id up to it (but
 * `keep`) removes a prefix, never a row after a younger one: with clocks that disagree across
 * replicas, the feed still loses no entry from its middle.
 */
export function prefixCutoff(
  head: readonly HeadRow[],
  before: Date,
  keep?: number,
): { readonly cutoff: number | null; readonly whole: boolean } {
  let cutoff: number | null = null;
  for (const row of head) {
    if (row.id === keep) continue;
    if (row.at.getTime() >= before.getTime()) return { cutoff, whole: false };
    cutoff = row.id;
  }
  return { cutoff, whole: true };
}

/** A feed pruned as a prefix (`changes`, `outcomes`): its table and the column holding each entry's time. */
export interface PrunedFeed {
  readonly table: "changes" | "loop_outcomes";
  readonly timeColumn: "occurred_at" | "received_at";
}

/** The statements of pruning a feed, the same in both dialects (`?` placeholders). */
export const feedRetentionSql = {
  /** The oldest entries of a feed, with their time as `at`. Binds the limit. */
  feedHead: (feed: PrunedFeed): string =>
    `SELECT sequence, ${feed.timeColumn} AS at FROM ${feed.table} ORDER BY sequence LIMIT ?`,
  /** Binds the highest sequence to delete. */
  deleteFeedPrefix: (feed: PrunedFeed): string => `DELETE FROM ${feed.table} WHERE sequence <= ?`,
} as const;
