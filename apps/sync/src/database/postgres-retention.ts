import type pg from "pg";
import { postgresQuery } from "./postgres-query.ts";
import { toDate } from "./row-values.ts";
import { feedRetentionSql, prefixCutoff, type PruneBatchOutcome, type PrunedFeed } from "./retention.ts";

/**
 * Deletes the oldest entries of `feed` older than `before`, at most `limit`, always a prefix (it
 * stops at the first younger entry), so the feed never has a hole. Shared by the change feed and
 * the outcome feed.
 */
export async function prunePostgresFeedPrefix(
  client: pg.ClientBase,
  feed: PrunedFeed,
  before: Date,
  limit: number,
): Promise<PruneBatchOutcome> {
  const result = await postgresQuery(client, feedRetentionSql.feedHead(feed), [limit]);
  const head = result.rows.map((row) => ({ id: Number(row.sequence), at: toDate(row.at) }));
  const { cutoff, whole } = prefixCutoff(head, before);
  const deleted =
    cutoff === null
      ? 0
      : ((await postgresQuery(client, feedRetentionSql.deleteFeedPrefix(feed), [cutoff])).rowCount ?? 0);
  return { deleted, more: whole && head.length === limit, deferred: false };
}
