import { integer, date } from "../database/columns.ts";
import { execute, first, rows, type Program } from "../database/program.ts";
import { prefixCutoff, pruneFeedPrefix, type PruneBatchOutcome } from "../database/retention.ts";
import { command, statement } from "../database/statement.ts";

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

/** The run readiness reads, kept however old. */
const LAST_SUCCESSFUL_RUN_ID = statement<[], number>(
  "SELECT id FROM runs WHERE status = 'succeeded' ORDER BY id DESC LIMIT 1",
  (row) => integer(row.id),
);
const RUNS_HEAD = statement<[limit: number], { readonly id: number; readonly at: Date }>(
  "SELECT id, finished_at FROM runs ORDER BY id LIMIT ?",
  (row) => ({ id: integer(row.id), at: date(row.finished_at) }),
);
const DELETE_RUNS_UP_TO = command<[cutoff: number, keep: number]>("DELETE FROM runs WHERE id <= ? AND id <> ?");
const DELETE_RESOLVED_QUARANTINE = command<[before: string, limit: number]>(
  "DELETE FROM quarantine WHERE key IN (SELECT key FROM quarantine WHERE resolved_at < ? ORDER BY resolved_at LIMIT ?)",
);

/**
 * One pruning batch of `target`, run by the store in its own short write transaction. Readers are
 * never blocked (WAL, MVCC); the rows it deletes are old, so a running cycle does not touch them,
 * save a resolved quarantine entry that turns up again at that moment, which waits for one small
 * batch.
 */
export function* pruneInventory(target: PruneTarget, before: Date, limit: number): Program<PruneBatchOutcome> {
  switch (target) {
    case "changes":
      return yield* pruneFeedPrefix({ table: "changes", timeColumn: "occurred_at" }, before, limit);
    case "runs": {
      const keepId = (yield* first(LAST_SUCCESSFUL_RUN_ID)) ?? -1;
      const head = yield* rows(RUNS_HEAD, limit);
      const { cutoff, whole } = prefixCutoff(head, before, keepId);
      const deleted = cutoff === null ? 0 : yield* execute(DELETE_RUNS_UP_TO, cutoff, keepId);
      return { deleted, more: whole && head.length === limit, deferred: false };
    }
    case "quarantine": {
      const deleted = yield* execute(DELETE_RESOLVED_QUARANTINE, before.toISOString(), limit);
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
}
