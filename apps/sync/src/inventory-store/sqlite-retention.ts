import type { DatabaseSync, StatementSync } from "node:sqlite";
import { toDate, toNumberOrNull, type Row } from "../database/row-values.ts";
import { prefixCutoff, retentionSql, type PruneBatchOutcome, type PrunedFeed, type PruneTarget } from "./retention.ts";

type Prepare = (sql: string) => StatementSync;

/**
 * One pruning batch on the SQLite writer connection, in its own `BEGIN IMMEDIATE` transaction.
 * node:sqlite is synchronous, so the batch runs whole between two turns of the event loop and a
 * cycle cannot interleave with it; the caller checks that no cycle transaction is open first.
 */
export function pruneSqliteBatch(
  db: DatabaseSync,
  prepare: Prepare,
  target: PruneTarget,
  before: Date,
  limit: number,
): PruneBatchOutcome {
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
export function pruneSqliteFeedPrefix(
  prepare: Prepare,
  feed: PrunedFeed,
  before: Date,
  limit: number,
): PruneBatchOutcome {
  const head = (prepare(retentionSql.feedHead(feed)).all(limit) as Row[]).map((row) => ({
    id: Number(row.sequence),
    at: toDate(row.at),
  }));
  const { cutoff, whole } = prefixCutoff(head, before);
  const deleted = cutoff === null ? 0 : Number(prepare(retentionSql.deleteFeedPrefix(feed)).run(cutoff).changes);
  return { deleted, more: whole && head.length === limit, deferred: false };
}

function pruneTarget(prepare: Prepare, target: PruneTarget, before: Date, limit: number): PruneBatchOutcome {
  switch (target) {
    case "changes":
      return pruneSqliteFeedPrefix(prepare, { table: "changes", timeColumn: "occurred_at" }, before, limit);
    case "runs": {
      const keepId = toNumberOrNull((prepare(retentionSql.lastSuccessfulRunId).get() as Row).id) ?? -1;
      const head = (prepare(retentionSql.runsHead).all(limit) as Row[]).map((row) => ({
        id: Number(row.id),
        at: toDate(row.finished_at),
      }));
      const { cutoff, whole } = prefixCutoff(head, before, keepId);
      const deleted = cutoff === null ? 0 : Number(prepare(retentionSql.deleteRunsUpTo).run(cutoff, keepId).changes);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
    case "quarantine": {
      const deleted = Number(prepare(retentionSql.deleteResolvedQuarantine).run(before.toISOString(), limit).changes);
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
}
