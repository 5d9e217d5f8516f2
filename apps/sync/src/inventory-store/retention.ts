/**
 * Bounded storage: what a store must offer so the feed, the run records and the quarantine stop
 * growing forever. The pruner (`src/retention/pruner.ts`) calls {@link RetentionStore.pruneBatch}
 * in small batches, each its own short transaction, so readers are never held up; the read API
 * calls {@link RetentionStore.feedHorizon} to tell a consumer who fell behind it.
 */
export interface RetentionStore {
  /**
   * Deletes one batch of at most `limit` rows of `target` that are older than `before`:
   *
   * - `changes`: feed entries that occurred before `before`, always a prefix of the feed (the
   *   oldest sequence numbers, stopping at the first younger entry), so the feed never has a hole;
   * - `runs`: run records that finished before `before`, except the most recent successful run
   *   (readiness reads it);
   * - `quarantine`: entries resolved before `before` (history); entries still unresolved are the
   *   present and are kept however old.
   */
  pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome>;
  /**
   * The feed's horizon: the highest sequence number pruned from the change feed, 0 while nothing
   * was. Every change above it is still kept; a consumer whose last seen sequence is below it
   * has missed changes and must resync (list, then follow the feed).
   */
  feedHorizon(): Promise<number>;
}

/** The kinds of rows retention prunes. */
export const pruneTargets = ["changes", "runs", "quarantine"] as const;
/** One of {@link pruneTargets}. */
export type PruneTarget = (typeof pruneTargets)[number];

/** What one {@link RetentionStore.pruneBatch} did. */
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

/** The statements of pruning, the same in both dialects (`?` placeholders, times bound as ISO 8601 text). */
export const retentionSql = {
  /** The oldest entries of a feed, with their time as `at`. Binds the limit. */
  feedHead: (feed: PrunedFeed): string =>
    `SELECT sequence, ${feed.timeColumn} AS at FROM ${feed.table} ORDER BY sequence LIMIT ?`,
  /** Binds the highest sequence to delete. */
  deleteFeedPrefix: (feed: PrunedFeed): string => `DELETE FROM ${feed.table} WHERE sequence <= ?`,
  /** The run readiness reads, kept however old. */
  lastSuccessfulRunId: "SELECT MAX(id) AS id FROM runs WHERE status = 'succeeded'",
  /** Binds the limit. */
  runsHead: "SELECT id, finished_at FROM runs ORDER BY id LIMIT ?",
  /** Binds the cutoff and the id kept. */
  deleteRunsUpTo: "DELETE FROM runs WHERE id <= ? AND id <> ?",
  /** Binds the time and the limit. */
  deleteResolvedQuarantine:
    "DELETE FROM quarantine WHERE key IN (SELECT key FROM quarantine WHERE resolved_at < ? ORDER BY resolved_at LIMIT ?)",
} as const;
