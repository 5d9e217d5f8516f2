import type pg from "pg";
import { prefixCutoff, type PruneBatchOutcome, type PruneTarget } from "./retention.ts";

/** The SQL of the feed horizon: one statement, so the feed and the counter come from one snapshot. */
export const POSTGRES_FEED_HORIZON = "SELECT COALESCE((SELECT min(sequence) FROM changes) - 1, (SELECT value FROM counters WHERE name = 'changes'))::text AS horizon";

/**
 * One pruning batch in its own short transaction on a pooled connection. Readers are never
 * blocked (MVCC); the rows it deletes are old, so the running cycle's transaction does not touch
 * them, save a resolved quarantine entry that turns up again at that moment, which waits for one
 * small batch.
 */
export async function prunePostgresBatch(pool: pg.Pool, target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const outcome = await pruneTarget(client, target, before, limit);
    await client.query("COMMIT");
    return outcome;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function pruneTarget(client: pg.ClientBase, target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
  switch (target) {
    case "changes": {
      const result = await client.query<{ sequence: string; occurred_at: Date }>("SELECT sequence, occurred_at FROM changes ORDER BY sequence LIMIT $1", [limit]);
      const head = result.rows.map((row) => ({ id: Number(row.sequence), at: row.occurred_at }));
      const { cutoff, whole } = prefixCutoff(head, before);
      const deleted = cutoff === null ? 0 : ((await client.query("DELETE FROM changes WHERE sequence <= $1", [cutoff])).rowCount ?? 0);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
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
