import type { DatabaseSync, StatementSync } from "node:sqlite";
import { prefixCutoff, type PruneBatchOutcome, type PrunedFeed, type PruneTarget } from "./retention.ts";

type Prepare = (sql: string) => StatementSync;

/** The SQL of the feed horizon: one statement, so the feed and the counter come from one snapshot. */
export const SQLITE_FEED_HORIZON = "SELECT COALESCE((SELECT MIN(sequence) FROM changes) - 1, (SELECT value FROM counters WHERE name = 'changes')) AS horizon";

/**
 * One pruning batch on the SQLite writer connection, in its own `BEGIN IMMEDIATE` transaction.
 * node:sqlite is synchronous, so the batch runs whole between two turns of the event loop and a
 * cycle cannot interleave with it; the caller checks that no cycle transaction is open first.
 */
export function pruneSqliteBatch(db: DatabaseSync, prepare: Prepare, target: PruneTarget, before: Date, limit: number): PruneBatchOutcome {
  db.exec("BEGIN IMMEDIATE");
  try {
    const outcome = pruneTarget(prepare, target, before, limit);
    db.exec("COMMIT");
    return outcome;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * Deletes the oldest entries of `feed` older than `before`, at most `limit`, always a prefix (it
 * stops at the first younger entry), so the feed never has a hole. Shared by the change feed and
 * the outcome feed.
 */
export function pruneSqliteFeedPrefix(prepare: Prepare, feed: PrunedFeed, before: Date, limit: number): PruneBatchOutcome {
  const head = (prepare(`SELECT sequence, ${feed.timeColumn} AS at FROM ${feed.table} ORDER BY sequence LIMIT ?`).all(limit) as { sequence: number; at: string }[]).map((row) => ({
    id: row.sequence,
    at: new Date(row.at),
  }));
  const { cutoff, whole } = prefixCutoff(head, before);
  const deleted = cutoff === null ? 0 : Number(prepare(`DELETE FROM ${feed.table} WHERE sequence <= ?`).run(cutoff).changes);
  return { deleted, more: whole && head.length === limit, deferred: false };
}

function pruneTarget(prepare: Prepare, target: PruneTarget, before: Date, limit: number): PruneBatchOutcome {
  switch (target) {
    case "changes":
      return pruneSqliteFeedPrefix(prepare, { table: "changes", timeColumn: "occurred_at" }, before, limit);
    case "runs": {
      const keep = prepare("SELECT MAX(id) AS id FROM runs WHERE status = 'succeeded'").get() as { id: number | null };
      const keepId = keep.id ?? -1;
      const head = (prepare("SELECT id, finished_at FROM runs ORDER BY id LIMIT ?").all(limit) as { id: number; finished_at: string }[]).map((row) => ({
        id: row.id,
        at: new Date(row.finished_at),
      }));
      const { cutoff, whole } = prefixCutoff(head, before, keepId);
      const deleted = cutoff === null ? 0 : Number(prepare("DELETE FROM runs WHERE id <= ? AND id <> ?").run(cutoff, keepId).changes);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
    case "quarantine": {
      const deleted = Number(
        prepare("DELETE FROM quarantine WHERE key IN (SELECT key FROM quarantine WHERE resolved_at < ? ORDER BY resolved_at LIMIT ?)").run(before.toISOString(), limit)
          .changes,
      );
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
}
