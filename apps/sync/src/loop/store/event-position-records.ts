import { integer, isoTime, nullable, oneOf, text } from "../../database/columns.ts";
import { execute, rows, type Program } from "../../database/program.ts";
import { command, statement } from "../../database/statement.ts";
import { decodeOutcome } from "./loop-rows.ts";
import type { EventFeed, EventPosition, OutcomeWithEntry } from "./loop-store.ts";

/*
 * The relay's records (events out, src/events/): where each sink stands in each feed, and the
 * outcome feed with what an event about it carries besides the record (the entry's uid). Written
 * once for both drivers, like loop-records.ts; a feed name the store should not hold is a
 * StoreError (columns.ts), never a default.
 */

const feeds: readonly EventFeed[] = ["outcomes", "changes"];
const eventFeed = oneOf(feeds);

const EVENT_POSITIONS = statement<[], EventPosition>("SELECT * FROM event_positions ORDER BY sink, feed", (row) => ({
  sink: text(row.sink),
  feed: eventFeed(row.feed),
  position: integer(row.position),
  updatedAt: isoTime(row.updated_at),
  failingSince: nullable(isoTime)(row.failing_since),
  lastError: nullable(text)(row.last_error),
}));

const SAVE_EVENT_POSITION = command<
  [
    sink: string,
    feed: EventFeed,
    position: number,
    updatedAt: string,
    failingSince: string | null,
    lastError: string | null,
  ]
>(
  `INSERT INTO event_positions (sink, feed, position, updated_at, failing_since, last_error) VALUES (?, ?, ?, ?, ?, ?)
   ON CONFLICT (sink, feed) DO UPDATE SET
     position = CASE WHEN excluded.position > event_positions.position THEN excluded.position ELSE event_positions.position END,
     updated_at = excluded.updated_at, failing_since = excluded.failing_since, last_error = excluded.last_error`,
);

/** The feed as `GET /v1/outcomes` lists it (speeder flag included), with each entry's uid: what events carry. */
const OUTCOMES_WITH_ENTRIES = statement<[after: number, limit: number], OutcomeWithEntry>(
  "SELECT o.*, e.uid AS entry_uid, e.speeder FROM loop_outcomes o LEFT JOIN loop_entries e ON e.token = o.token WHERE o.sequence > ? ORDER BY o.sequence LIMIT ?",
  (row) => ({ ...decodeOutcome(row), uid: nullable(text)(row.entry_uid) }),
);

/** {@link LoopStore.eventPositions}. */
export function* eventPositions(): Program<EventPosition[]> {
  return yield* rows(EVENT_POSITIONS);
}

/**
 * {@link LoopStore.saveEventPosition}: the position never moves back, so a deposed leader's late
 * write cannot undo the new leader's progress.
 */
export function* saveEventPosition(position: EventPosition): Program<void> {
  yield* execute(
    SAVE_EVENT_POSITION,
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
  return yield* rows(OUTCOMES_WITH_ENTRIES, after, limit);
}
