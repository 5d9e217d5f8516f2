import { date, integer } from "./columns.ts";
import { execute, rows, type Program } from "./program.ts";
import { command, statement } from "./statement.ts";

/*
 * Retention both stores share: a batch's outcome, and a feed (`changes`, `loop_outcomes`) pruned as
 * a prefix so it never has a hole.
 */

/** What one `pruneBatch` of a store did. */
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

const feedStatements = new Map<PrunedFeed["table"], ReturnType<typeof feedStatementsOf>>();

function feedStatementsOf(feed: PrunedFeed) {
  return {
    /** The oldest entries of a feed. */
    head: statement<[limit: number], HeadRow>(
      `SELECT sequence, ${feed.timeColumn} AS at FROM ${feed.table} ORDER BY sequence LIMIT ?`,
      (row) => ({ id: integer(row.sequence), at: date(row.at) }),
    ),
    deletePrefix: command<[lastSequence: number]>(`DELETE FROM ${feed.table} WHERE sequence <= ?`),
  };
}

/**
 * Deletes the oldest entries of `feed` older than `before`, at most `limit`, always a prefix (it
 * stops at the first younger entry), so the feed never has a hole. Shared by the change feed and
 * the outcome feed; run in a write transaction of its own.
 */
export function* pruneFeedPrefix(feed: PrunedFeed, before: Date, limit: number): Program<PruneBatchOutcome> {
  let statements = feedStatements.get(feed.table);
  if (statements === undefined) feedStatements.set(feed.table, (statements = feedStatementsOf(feed)));
  const head = yield* rows(statements.head, limit);
  const { cutoff, whole } = prefixCutoff(head, before);
  const deleted = cutoff === null ? 0 : yield* execute(statements.deletePrefix, cutoff);
  return { deleted, more: whole && head.length === limit, deferred: false };
}
