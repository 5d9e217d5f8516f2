import type { DatabaseSync } from "node:sqlite";
import type pg from "pg";
import { postgresQuery } from "../database/postgres-query.ts";
import { prunePostgresFeedPrefix } from "../database/postgres-retention.ts";
import { prefixCutoff, type PruneBatchOutcome } from "../database/retention.ts";
import { toDate, toNumberOrNull, type Row } from "../database/row-values.ts";
import { pruneSqliteFeedPrefix, type Prepare } from "../database/sqlite-retention.ts";

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

/** The statements of pruning runs and the quarantine, the same in both dialects (`?` placeholders, times bound as ISO 8601 text). */
export const inventoryRetentionSql = {
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
    const outcome = pruneSqliteTarget(prepare, target, before, limit);
    db.exec("COMMIT");
    return outcome;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

function pruneSqliteTarget(prepare: Prepare, target: PruneTarget, before: Date, limit: number): PruneBatchOutcome {
  switch (target) {
    case "changes":
      return pruneSqliteFeedPrefix(prepare, { table: "changes", timeColumn: "occurred_at" }, before, limit);
    case "runs": {
      const keepId = toNumberOrNull((prepare(inventoryRetentionSql.lastSuccessfulRunId).get() as Row).id) ?? -1;
      const head = (prepare(inventoryRetentionSql.runsHead).all(limit) as Row[]).map((row) => ({
        id: Number(row.id),
        at: toDate(row.finished_at),
      }));
      const { cutoff, whole } = prefixCutoff(head, before, keepId);
      const deleted =
        cutoff === null ? 0 : Number(prepare(inventoryRetentionSql.deleteRunsUpTo).run(cutoff, keepId).changes);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
    case "quarantine": {
      const deleted = Number(
        prepare(inventoryRetentionSql.deleteResolvedQuarantine).run(before.toISOString(), limit).changes,
      );
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
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
      const keepId =
        toNumberOrNull((await postgresQuery(client, inventoryRetentionSql.lastSuccessfulRunId)).rows[0]?.id) ?? -1;
      const result = await postgresQuery(client, inventoryRetentionSql.runsHead, [limit]);
      const head = result.rows.map((row) => ({ id: Number(row.id), at: toDate(row.finished_at) }));
      const { cutoff, whole } = prefixCutoff(head, before, keepId);
      const deleted =
        cutoff === null
          ? 0
          : ((await postgresQuery(client, inventoryRetentionSql.deleteRunsUpTo, [cutoff, keepId])).rowCount ?? 0);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
    case "quarantine": {
      const deleted =
        (await postgresQuery(client, inventoryRetentionSql.deleteResolvedQuarantine, [before.toISOString(), limit]))
          .rowCount ?? 0;
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
}
