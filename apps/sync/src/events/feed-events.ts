import type { EventFeed, LoopStore, OutcomeWithEntry } from "../loop/store/loop-store.ts";
import type { ChangeRecord, SyncStore } from "../inventory-store/store.ts";

/** One record of a feed as it goes out: to JetStream as a message, to a webhook as a POST. */
export interface FeedEvent {
  readonly feed: EventFeed;
  readonly sequence: number;
  /** `outcome-<sequence>` / `change-<sequence>`: `Nats-Msg-Id` and `webhook-id`, the same on every retry. */
  readonly id: string;
  /** The subject without the prefix: `outcomes.<outcome>`, `changes.<type>` (a webhook's `type`). */
  readonly subject: string;
  /** When the record was made (`receivedAt`, `occurredAt`), ISO 8601. */
  readonly at: string;
  /** The message body: the feed record as the HTTP feed returns it (plus `uid` and `Cpi` for outcomes), as JSON text. */
  readonly body: string;
}

/** A feed the relay reads: the records after a sequence, already turned into events, and how far the feed was pruned. */
export interface EventSource {
  readonly feed: EventFeed;
  /** The events after `after`, oldest first, at most `limit`. */
  read(after: number, limit: number): Promise<FeedEvent[]>;
  /** The feed's horizon: everything up to it was pruned. */
  horizon(): Promise<number>;
  /** The latest sequence of the feed. */
  latest(): Promise<number>;
}

/** The change feed's record as `GET /v1/changes` returns it. */
export function changeEvent(change: ChangeRecord): FeedEvent {
  const body = {
    sequence: change.sequence,
    type: change.type,
    surveyId: change.surveyId,
    runId: change.runId,
    occurredAt: change.occurredAt,
  };
  return {
    feed: "changes",
    sequence: change.sequence,
    id: `change-${change.sequence}`,
    subject: `changes.${change.type}`,
    at: change.occurredAt,
    body: JSON.stringify(body),
  };
}

/**
 * The outcome feed's record as `GET /v1/outcomes` returns it, plus the entry's `uid` and the
 * survey's `Cpi` as the marketplace sent it (a string; null when the survey is not stored): what
 * a rewards ledger credits or debits.
 */
export function outcomeEvent(outcome: OutcomeWithEntry, cpi: string | null): FeedEvent {
  const { uid, ...record } = outcome;
  return {
    feed: "outcomes",
    sequence: outcome.sequence,
    id: `outcome-${outcome.sequence}`,
    subject: `outcomes.${outcome.outcome}`,
    at: outcome.receivedAt,
    body: JSON.stringify({ ...record, uid, Cpi: cpi }),
  };
}

/** The change feed as events. */
export function changeSource(store: Pick<SyncStore, "listChanges" | "feedHorizon" | "latestSequence">): EventSource {
  return {
    feed: "changes",
    read: async (after, limit) => (await store.listChanges(after, limit)).map(changeEvent),
    horizon: () => store.feedHorizon(),
    latest: () => store.latestSequence(),
  };
}

/** The `Cpi` of a stored survey record, as the marketplace sent it. */
function cpiOf(record: string | undefined): string | null {
  if (record === undefined) return null;
  const cpi = (JSON.parse(record) as { Cpi?: unknown }).Cpi;
  // The spec types Cpi as a string; a number (a marketplace that sends one) is kept as its text.
  return typeof cpi === "string" ? cpi : typeof cpi === "number" ? String(cpi) : null;
}

/** The outcome feed as events, each with its survey's `Cpi` read from the inventory (one read per batch). */
export function outcomeSource(
  outcomes: Pick<LoopStore, "listOutcomesWithEntries" | "feedHorizon" | "latestSequence">,
  inventory: Pick<SyncStore, "surveyRecords">,
): EventSource {
  return {
    feed: "outcomes",
    async read(after, limit) {
      const records = await outcomes.listOutcomesWithEntries(after, limit);
      const surveyIds = [...new Set(records.flatMap((record) => (record.surveyId === null ? [] : [record.surveyId])))];
      const surveys = surveyIds.length === 0 ? new Map<number, string>() : await inventory.surveyRecords(surveyIds);
      const cpis = new Map(surveyIds.map((id) => [id, cpiOf(surveys.get(id))]));
      return records.map((record) =>
        outcomeEvent(record, record.surveyId === null ? null : (cpis.get(record.surveyId) ?? null)),
      );
    },
    horizon: () => outcomes.feedHorizon(),
    latest: () => outcomes.latestSequence(),
  };
}
