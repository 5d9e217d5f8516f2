import type { StatementSync } from "node:sqlite";
import { toDate, type Row } from "./row-values.ts";
import { feedRetentionSql, prefixCutoff, type PruneBatchOutcome, type PrunedFeed } from "./retention.ts";

/** A prepared statement of the connection for a text. */
export type Prepare = (sql: string) => StatementSync;

/**
 * Deletes the oldest entries of `feed` older than `before`, at most `limit`, always a prefix (it
 * stops at the first younger entry), so the feed never has a hole. Shared by the change feed and
 * the outcome feed.
 */
export function pruneSqliteFeedPrefix(
  prepare: Prepare,
  feed: PrunedFeed,
  before: Date,
  limit: number,
): PruneBatchOutcome {
  const head = (prepare(feedRetentionSql.feedHead(feed)).all(limit) as Row[]).map((row) => ({
    id: Number(row.sequence),
    at: toDate(row.at),
  }));
  const { cutoff, whole } = prefixCutoff(head, before);
  const deleted = cutoff === null ? 0 : Number(prepare(feedRetentionSql.deleteFeedPrefix(feed)).run(cutoff).changes);
  return { deleted, more: whole && head.length === limit, deferred: false };
}
