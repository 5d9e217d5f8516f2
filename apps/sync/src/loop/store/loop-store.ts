import type { PruneBatchOutcome } from "../../store/retention.ts";

/**
 * The respondent loop's records, pruned by `SYNC_OUTCOME_RETENTION_SECONDS` (kept forever by
 * default) through {@link OutcomeRetentionStore}:
 *
 * - `outcomes`: outcomes received before `before`, always a prefix of the outcome feed, like
 *   `changes`;
 * - `entries`: entry links issued before `before` whose latest outcome, if any, also came before it.
 */
export const outcomePruneTargets = ["outcomes", "entries"] as const;
/** One of {@link outcomePruneTargets}. */
export type OutcomePruneTarget = (typeof outcomePruneTargets)[number];

/** What the outcome store offers retention: {@link RetentionStore}'s two calls, for the loop's records. */
export interface OutcomeRetentionStore {
  /** Deletes one batch of at most `limit` rows of `target` older than `before` (see {@link outcomePruneTargets}). */
  pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome>;
  /**
   * The outcome feed's horizon: the highest sequence number pruned from it, 0 while nothing was.
   * A reader whose last seen sequence is below it has missed outcomes.
   */
  feedHorizon(): Promise<number>;
}

/** The four ends of a respondent's session the marketplace reports, as the receiver's routes name them. */
export const outcomeKinds = ["complete", "terminate", "overquota", "security"] as const;
/** One of {@link outcomeKinds}. */
export type OutcomeKind = (typeof outcomeKinds)[number];

/** An entry link issued through sds-sync: the denominator of conversion. */
export interface EntryInput {
  /** The transaction token the link carries; the marketplace echoes it in the outcome. */
  readonly token: string;
  readonly surveyId: number;
  /** The respondent's id in the supplier's system. */
  readonly uid: string;
  /** The survey's `Cpi` when the link was issued: what a complete of this entry earns. */
  readonly cpi: number;
  readonly at: Date;
}

/** A recorded entry. */
export interface EntryRecord {
  readonly token: string;
  readonly surveyId: number;
  readonly uid: string;
  readonly cpi: number;
  readonly issuedAt: string;
  /** The entry's latest outcome, null while none arrived. */
  readonly outcome: OutcomeKind | null;
}

/** What {@link OutcomeStore.recordEntry} did. */
export type RecordEntryResult =
  /** `recorded`: a new entry; `existing`: the same token for the same survey and respondent (a retry), nothing new. */
  | { readonly kind: "recorded" | "existing"; readonly entry: EntryRecord }
  /** The token is already used by an entry of another survey or respondent: nothing recorded. */
  | { readonly kind: "conflict"; readonly entry: EntryRecord };

/** One outcome as received. */
export interface OutcomeInput {
  readonly token: string;
  readonly outcome: OutcomeKind;
  readonly at: Date;
}

/** One recorded outcome, in the order the outcome feed lists them. */
export interface OutcomeRecord {
  /** Position in the outcome feed: gapless per store, in commit order. */
  readonly sequence: number;
  readonly token: string;
  readonly outcome: OutcomeKind;
  /** The survey of the entry the token belongs to; null for a token no entry of sds-sync carries. */
  readonly surveyId: number | null;
  /** The token's outcome before this one when this is a transition (a reconciliation), else null. */
  readonly previousOutcome: OutcomeKind | null;
  readonly receivedAt: string;
}

/** What {@link OutcomeStore.recordOutcome} did: `recorded` false means a repeat (nothing new). */
export interface RecordOutcomeResult {
  readonly recorded: boolean;
  readonly record: OutcomeRecord;
}

/** Entries and outcomes of one survey. */
export interface SurveyConversionCounts {
  readonly surveyId: number;
  readonly entries: number;
  /** Entries by their latest outcome. */
  readonly completes: number;
  readonly terminates: number;
  readonly overquotas: number;
  readonly securityTerminates: number;
  /** Sum of the `Cpi` of the completed entries (as issued). */
  readonly earnings: number;
}

/**
 * The respondent loop's records: entries issued and outcomes received. Separate from the sync
 * store because every replica writes it (the receiver runs everywhere), at any time, while the
 * sync store has a single writer, the leader's cycle. Idempotent by construction: one record per
 * (token, outcome), enforced by a unique constraint.
 */
export interface OutcomeStore extends OutcomeRetentionStore {
  readonly kind: "sqlite" | "postgres";
  /** Records an entry, idempotently by token. */
  recordEntry(entry: EntryInput): Promise<RecordEntryResult>;
  /**
   * Records an outcome once per (token, outcome), durably before it resolves. A repeat records
   * nothing; a different outcome for a token that had one is recorded as a transition
   * (`previousOutcome`), never dropped.
   */
  recordOutcome(outcome: OutcomeInput): Promise<RecordOutcomeResult>;
  /** Outcomes with a sequence above `after`, oldest first. */
  listOutcomes(after: number, limit: number): Promise<OutcomeRecord[]>;
  /** The outcome feed's latest sequence (all replicas), 0 while nothing was recorded. */
  latestSequence(): Promise<number>;
  /** Per survey with at least one entry, by survey id. */
  conversion(): Promise<SurveyConversionCounts[]>;
  /** Outcomes recorded in all, by kind (all replicas). */
  outcomeCounts(): Promise<Readonly<Record<OutcomeKind, number>>>;
  close(): Promise<void>;
}

/** Whether a string names an outcome. */
export function isOutcomeKind(value: string): value is OutcomeKind {
  return (outcomeKinds as readonly string[]).includes(value);
}
