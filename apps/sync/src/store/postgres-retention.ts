import type pg from "pg";
import { prefixCutoff, type PruneBatchOutcome, type PrunedFeed, type PruneTarget } from "./retention.ts";

/** The SQL of the feed horizon: one statement, so the feed and the counter come from one snapshot. */
export const POSTGRES_FEED_HORIZON = "SELECT COALESCE((SELECT min(sequence) FROM changes) - 1, (SELECT value FROM counters WHERE name = 'changes'))::text AS horizon";

/**
 * Deletes the oldest entries of `feed` older than `before`, at most `limit`, always a prefix (it
 * stops at the first younger entry), so the feed never has a hole. Shared by the change feed and
 * the outcome feed.
 */
export async function prunePostgresFeedPrefix(client: pg.ClientBase, feed: PrunedFeed, before: Date, limit: number): Promise<PruneBatchOutcome> {
  const result = await client.query<{ sequence: string; at: Date }>(`SELECT sequence, ${feed.timeColumn} AS at FROM ${feed.table} ORDER BY sequence LIMIT $1`, [limit]);
  const head = result.rows.map((row) => ({ id: Number(row.sequence), at: row.at }));
  const { cutoff, whole } = prefixCutoff(head, before);
  const deleted = cutoff === null ? 0 : ((await client.query(`DELETE FROM ${feed.table} WHERE sequence <= $1`, [cutoff])).rowCount ?? 0);
  return { deleted, more: whole && head.length === limit, deferred: false };
}

/**
 * One pruning batch of `target`, run by the store in its own short transaction on a pooled
 * connection. Readers are never blocked (MVCC); the rows it deletes are old, so the running
 * cycle's transaction does not touch them, save a resolved quarantine entry that turns up again
 * at that moment, which waits for one small batch.
 */
export async function prunePostgresTarget(client: pg.ClientBase, target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
  switch (target) {
    case "changes":
      return prunePostgresFeedPrefix(client, { table: "changes", timeColumn: "occurred_at" }, before, limit);
    case "runs": {
      const keep = await client.query<{ id: string | null }>("SELECT max(id) AS id FROM runs WHERE status = 'succeeded'");
      const keepId = keep.rows[0]?.id == null ? -1 : Number(keep.rows[0].id);
      const result = await client.query<{ id: string; finished_at: Date }>("SELECT id, finished_at FROM runs ORDER BY id LIMIT $1", [limit]);
      const head = result.rows.map((row) => ({ id: Number(row.id), at: row.finished_at }));
      const { cutoff, whole } = prefixCutoff(head, before, keepId);
      const deleted = cutoff === null ? 0 : ((await client.query("DELETE FROM runs WHERE id <= $1 AND id <> $2", [cutoff, keepId])).rowCount ?? 0);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
    case "quarantine": {
      const result = await client.query(
        "DELETE FROM quarantine WHERE key IN (SELECT key FROM quarantine WHERE resolved_at < $1 ORDER BY resolved_at LIMIT $2)",
        [before, limit],
      );
      const deleted = result.rowCount ?? 0;
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
}
