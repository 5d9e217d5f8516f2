import { query, type Program } from "./loop-program.ts";
import { toIso, toOutcome } from "./loop-records.ts";
import type { EventFeed, EventPosition, OutcomeWithEntry } from "./loop-store.ts";

/*
 * The relay's records (events out, src/events/): where each sink stands in each feed, and the
 * outcome feed with what an event about it carries besides the record (the entry's uid). Written
 * once for both drivers, like loop-records.ts.
 */

const feeds: readonly EventFeed[] = ["outcomes", "changes"];

/** {@link LoopStore.eventPositions}. */
export function* eventPositions(): Program<EventPosition[]> {
  return (yield* query("SELECT * FROM event_positions ORDER BY sink, feed")).map((row) => ({
    sink: String(row.sink),
    feed: feeds.find((feed) => feed === row.feed) ?? "outcomes",
    position: Number(row.position),
    updatedAt: toIso(row.updated_at),
    failingSince: row.failing_since === null || row.failing_since === undefined ? null : toIso(row.failing_since),
    lastError: typeof row.last_error === "string" ? row.last_error : null,
  }));
}

/**
 * {@link LoopStore.saveEventPosition}: the position never moves back, so a deposed leader's late
 * write cannot undo the new leader's progress.
 */
export function* saveEventPosition(position: EventPosition): Program<void> {
  yield* query(
    `INSERT INTO event_positions (sink, feed, position, updated_at, failing_since, last_error) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (sink, feed) DO UPDATE SET
       position = CASE WHEN excluded.position > event_positions.position THEN excluded.position ELSE event_positions.position END,
       updated_at = excluded.updated_at, failing_since = excluded.failing_since, last_error = excluded.last_error`,
    position.sink,
    position.feed,
    position.position,
    position.updatedAt,
    position.failingSince,
    position.lastError,
  );
}

/** {@link LoopStore.listOutcomesWithEntries}. */
export function* listOutcomesWithEntries(after: number, limit: number): Program<OutcomeWithEntry[]> {
  const rows = yield* query(
    "SELECT o.*, e.uid AS entry_uid FROM loop_outcomes o LEFT JOIN loop_entries e ON e.token = o.token WHERE o.sequence > ? ORDER BY o.sequence LIMIT ?",
    after,
    limit,
  );
  return rows.map((row) => ({ ...toOutcome(row), uid: typeof row.entry_uid === "string" ? row.entry_uid : null }));
}
