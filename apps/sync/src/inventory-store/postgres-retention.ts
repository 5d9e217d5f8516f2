import type pg from "pg";
import { postgresQuery } from "../database/postgres-query.ts";
import { toDate, toNumberOrNull } from "../database/row-values.ts";
import { prefixCutoff, retentionSql, type PruneBatchOutcome, type PrunedFeed, type PruneTarget } from "./retention.ts";

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
  const result = await postgresQuery(client, retentionSql.feedHead(feed), [limit]);
  const head = result.rows.map((row) => ({ id: Number(row.sequence), at: toDate(row.at) }));
  const { cutoff, whole } = prefixCutoff(head, before);
  const deleted =
    cutoff === null ? 0 : ((await postgresQuery(client, retentionSql.deleteFeedPrefix(feed), [cutoff])).rowCount ?? 0);
  return { deleted, more: whole && head.length === limit, deferred: false };
}

/**
 * One pruning batch of `target`, run by the store in its own short transaction on a pooled
 * connection. Readers are never blocked (MVCC); the rows it deletes are old, so the running
 * cycle's transaction does not touch them, save a resolved quarantine entry that turns up again
 * at that moment, which waits for one small batch.
 */
export async function prunePostgresTarget(
  client: pg.ClientBase,
  target: PruneTarget,
  before: Date,
  limit: number,
): Promise<PruneBatchOutcome> {
  switch (target) {
    case "changes":
      return prunePostgresFeedPrefix(client, { table: "changes", timeColumn: "occurred_at" }, before, limit);
    case "runs": {
      const keepId = toNumberOrNull((await postgresQuery(client, retentionSql.lastSuccessfulRunId)).rows[0]?.id) ?? -1;
      const result = await postgresQuery(client, retentionSql.runsHead, [limit]);
      const head = result.rows.map((row) => ({ id: Number(row.id), at: toDate(row.finished_at) }));
      const { cutoff, whole } = prefixCutoff(head, before, keepId);
      const deleted =
        cutoff === null
          ? 0
          : ((await postgresQuery(client, retentionSql.deleteRunsUpTo, [cutoff, keepId])).rowCount ?? 0);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
    case "quarantine": {
      const deleted =
        (await postgresQuery(client, retentionSql.deleteResolvedQuarantine, [before.toISOString(), limit])).rowCount ??
        0;
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
}
