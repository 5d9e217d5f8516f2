import type { OutcomeKind, OutcomeSource } from "@sds/sync-client";
import type { PruneBatchOutcome } from "../../database/retention.ts";
import type { Program } from "../../database/program.ts";
import type { RoutingData, RoutingDataWrite, SurveyYieldCounts } from "./routing-data-records.ts";

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

/* The outcome kinds and sources are part of sds-sync's HTTP contract, owned by `@sds/sync-client`. */
export { isOutcomeKind, outcomeKinds, outcomeSources, type OutcomeKind, type OutcomeSource } from "@sds/sync-client";

/** Settings the recording programs need. */
export interface RecordingSettings {
  /**
   * Decided entries with no complete after which a survey is held out of yield ranking
   * (`SYNC_YIELD_CUTOFF_ENTRIES`): the time an outcome makes the survey fail a trial, by
   * `@sds/routing`'s `reachesYieldCutoff`, is kept as `cutoff_reached_at`. @default 20
   */
  readonly yieldCutoffEntries: number;
  /**
   * A complete (S2S or return) recorded less than this fraction of its survey's Loi after its
   * entry was issued is a speeder (`SYNC_SPEEDER_FRACTION`): flagged on the entry and counted
   * in its respondent's risk. 0: off. @default 0.3
   */
  readonly speederFraction: number;
}

/** An entry link issued through sds-sync: the denominator of conversion. */
export interface EntryInput {
  /** The transaction token the link carries; the marketplace echoes it in the outcome. */
  readonly token: string;
  readonly surveyId: number;
  /** The respondent's id in the supplier's system ("" when unknown). */
  readonly uid: string;
  /** The survey's `Cpi` when the link was issued: what a complete of this entry earns. */
  readonly cpi: number;
  readonly at: Date;
  /** The survey's `Loi` in minutes when the link was issued: what a speeding complete is measured against. */
  readonly loiMinutes?: number | undefined;
  /** The entry link as issued: a retry of the token is answered with it, whatever the survey's SurveyUrl became. */
  readonly link?: string | undefined;
}

/** One earlier entry of a respondent, as routing rules read it (imported entries included). */
export interface PastEntry {
  readonly surveyId: number;
  /** Epoch milliseconds. */
  readonly enteredAt: number;
  /** The entry's current outcome; null while none arrived. */
  readonly outcome: OutcomeKind | null;
}

/**
 * A respondent's history as the routing rules read it, from every entry (issued and imported),
 * never a latest few: per survey and outcome the latest entry (what re-entry and the groups
 * decide on), and the entries and completes of the caps' window, counted by the database.
 */
export interface RespondentHistory {
  /** The latest entry per survey and outcome, in no order. */
  readonly entries: readonly PastEntry[];
  /** Entries and completes issued in the 24 hours before the time the history was read for (later ones included). */
  readonly last24h: { readonly entries: number; readonly completes: number };
}

/** The history of a respondent with no entries (or of none). */
export const noHistory: RespondentHistory = { entries: [], last24h: { entries: 0, completes: 0 } };

/**
 * Decides, inside the transaction that records an entry (after a retry of its token is
 * recognised) and, for an entry with a uid, with the respondent's history read under a lock on
 * that respondent (empty without a uid), whether the entry may be issued: undefined admits it, a
 * value refuses it (and is returned). Must be synchronous and pure: it runs under the lock.
 */
export type EntryAdmission<Refusal> = (history: RespondentHistory) => Refusal | undefined;

/** A recorded entry. */
export interface EntryRecord {
  readonly token: string;
  readonly surveyId: number;
  readonly uid: string;
  readonly cpi: number;
  readonly issuedAt: string;
  /** The entry's current outcome, null while none arrived. */
  readonly outcome: OutcomeKind | null;
  /** The entry link as issued; null for an imported entry or one recorded before links were kept. */
  readonly link: string | null;
}

/** What {@link LoopStore.recordEntry} did. */
export type RecordEntryResult<Refusal = never> =
  /**
   * `recorded`: a new entry (with `attached`, the outcomes that had arrived for its token before it
   * was issued, now applied to it); `existing`: the same token for the same survey and respondent
   * (a retry), nothing new.
   */
  | { readonly kind: "recorded"; readonly entry: EntryRecord; readonly attached: readonly OutcomeRecord[] }
  | { readonly kind: "existing"; readonly entry: EntryRecord }
  /** The token is already used by an entry of another survey or respondent: nothing recorded. */
  | { readonly kind: "conflict"; readonly entry: EntryRecord }
  /** The admission check refused the respondent: nothing recorded. */
  | { readonly kind: "refused"; readonly refusal: Refusal };

/** One outcome as received (or reconciled). */
export interface OutcomeInput {
  readonly token: string;
  readonly outcome: OutcomeKind;
  readonly at: Date;
  /** @default "s2s" */
  readonly source?: OutcomeSource;
  /** Why (a reconciliation's reason), kept in the feed. */
  readonly reason?: string;
}

/** One recorded change of a token's current outcome, in the order the outcome feed lists them. */
export interface OutcomeRecord {
  /** Position in the outcome feed: gapless per store, in commit order. */
  readonly sequence: number;
  readonly token: string;
  readonly outcome: OutcomeKind;
  /** The survey of the entry the token belongs to; null for a token no entry carried when it arrived (an orphan). */
  readonly surveyId: number | null;
  /** The token's outcome before this one (a transition), else null. */
  readonly previousOutcome: OutcomeKind | null;
  readonly receivedAt: string;
  readonly source: OutcomeSource;
  readonly reason: string | null;
  /** The entry is flagged as a speeder (its complete came faster than SYNC_SPEEDER_FRACTION × Loi); listed by the feed. */
  readonly speeder?: true;
}

/** What {@link LoopStore.recordOutcome} did: `recorded` false means the token's current outcome already was this one (nothing new). */
export interface RecordOutcomeResult {
  readonly recorded: boolean;
  /** A reconciliation for a token no entry carries: nothing recorded (a reconciliation corrects entries; it does not make orphans). */
  readonly unknownToken?: true;
  /** The new transition, or (a repeat) the one that set the current outcome. */
  readonly record: OutcomeRecord;
}

/** Entries and their current outcomes, summed over one survey (or all) and one window. */
export interface ConversionCounts {
  readonly entries: number;
  readonly completes: number;
  readonly terminates: number;
  readonly overquotas: number;
  readonly securityTerminates: number;
  /** Completes taken back (a complete changed into another outcome). */
  readonly reversals: number;
  /** Sum of the `Cpi` (as issued) of the completes that stand: net of reversals. */
  readonly earnings: number;
}

/** Lifetime counts of one survey. */
export interface SurveyConversionCounts extends ConversionCounts {
  readonly surveyId: number;
}

/** The windows the loop keeps counts over, besides the lifetime. */
export const conversionWindows = { last24h: 24, last7d: 7 * 24 } as const;
/** One of {@link conversionWindows}. */
export type ConversionWindow = keyof typeof conversionWindows;

/** {@link LoopStore.conversionSummary}: totals over every survey, and the surveys earning most. */
export interface ConversionSummary {
  /** Sums over every survey with at least one entry. */
  readonly totals: {
    readonly lifetime: ConversionCounts;
    readonly last24h: ConversionCounts;
    readonly last7d: ConversionCounts;
  };
  /** Surveys with at least one entry. */
  readonly surveyCount: number;
  /** At most `limit` surveys: those earning most over the last 7 days, then over their lifetime, then by id. */
  readonly surveys: SurveyConversion[];
}

/** Per survey: the lifetime counts and those of each window (entries by issue hour, outcomes by arrival hour). */
export interface SurveyConversion {
  readonly surveyId: number;
  readonly lifetime: ConversionCounts;
  readonly last24h: ConversionCounts;
  readonly last7d: ConversionCounts;
}

/** One entry of a respondent's history made elsewhere, brought in so routing knows it. */
export interface HistoryInput {
  readonly uid: string;
  readonly surveyId: number;
  readonly enteredAt: Date;
  readonly outcome?: OutcomeKind | undefined;
}

/**
 * The respondent loop's records: entries issued and outcomes received. Separate from the sync
 * store because every replica writes it (the receiver runs everywhere), at any time, while the
 * sync store has a single writer, the leader's cycle.
 *
 * An entry's history is its transitions: every change of its current outcome is a row of the
 * outcome feed, in order; a repeat of the current outcome records nothing. Conversion counts are
 * kept as entries and outcomes are recorded (same transaction), per survey for the lifetime and
 * per hour, so every read is O(surveys), never O(entries).
 */
export interface LoopStore extends OutcomeRetentionStore {
  readonly kind: "sqlite" | "postgres";
  /**
   * Records an entry, idempotently by token. An `admit` check runs before anything is written
   * (a retry of a known token is answered before it); with a non-empty uid the respondent is
   * locked first (across replicas) and their history read for it: two concurrent entries of one
   * respondent are decided one after the other.
   * Outcomes that arrived for the token before the entry (orphans) are attached to it.
   */
  recordEntry<Refusal = never>(entry: EntryInput, admit?: EntryAdmission<Refusal>): Promise<RecordEntryResult<Refusal>>;
  /** Records a change of a token's current outcome, durably before it resolves; a repeat of the current outcome records nothing. */
  recordOutcome(outcome: OutcomeInput): Promise<RecordOutcomeResult>;
  /**
   * The current outcome of each entry issued through sds-sync among `tokens` (null while none
   * arrived); a token no such entry carries is absent from the map. Reads, records nothing: what a
   * dry run of a reconciliation compares against.
   */
  currentOutcomes(tokens: readonly string[]): Promise<Map<string, OutcomeKind | null>>;
  /** Outcomes with a sequence above `after`, oldest first. */
  listOutcomes(after: number, limit: number): Promise<OutcomeRecord[]>;
  /** Outcomes with a sequence above `after`, oldest first, each with its entry's uid (what an event carries). */
  listOutcomesWithEntries(after: number, limit: number): Promise<OutcomeWithEntry[]>;
  /** Where every sink of events out stands in each feed. */
  eventPositions(): Promise<EventPosition[]>;
  /** Stores where a sink stands (never moving its position back), with its failure state. */
  saveEventPosition(position: EventPosition): Promise<void>;
  /** The outcome feed's latest sequence (all replicas), 0 while nothing was recorded. */
  latestSequence(): Promise<number>;
  /** Lifetime counts per survey with at least one entry, by survey id. */
  conversion(): Promise<SurveyConversionCounts[]>;
  /**
   * Lifetime and windowed counts as of `now`: totals over every survey (summed by the database)
   * and the `limit` surveys earning most, so a large loop costs the caller O(limit), not O(surveys).
   */
  conversionSummary(now: Date, limit: number): Promise<ConversionSummary>;
  /** A version of the conversion report: equal versions hold equal figures (a status page polled by many tabs reads it instead of the report). */
  conversionVersion(now: Date): Promise<string>;
  /** Transitions recorded in all, by the outcome they set (all replicas). */
  outcomeCounts(): Promise<Readonly<Record<OutcomeKind, number>>>;
  /** Tokens whose outcomes arrived with no entry to attach to (not conversions). */
  orphanCount(): Promise<number>;
  /** A respondent's history (issued and imported entries) as the rules read it at `now`: one indexed read of every entry. */
  respondentHistory(uid: string, now: Date): Promise<RespondentHistory>;
  /** The entry that carries a token, if any (a retry's entry). */
  entryOf(token: string): Promise<EntryRecord | undefined>;
  /** Brings in entries made elsewhere; one already known (same respondent, survey and time) is skipped. */
  importHistory(entries: readonly HistoryInput[]): Promise<{ readonly imported: number; readonly skipped: number }>;
  /** Stores one round of the refresher's fetches (groups, re-contact lists, stats, failures). */
  writeRoutingData(writes: readonly RoutingDataWrite[], at: Date): Promise<void>;
  /** Forgets the routing data of surveys no longer live. */
  forgetRoutingData(surveyIds: readonly number[]): Promise<void>;
  /** The routing data's version (bumped by every write). */
  routingDataVersion(): Promise<number>;
  /** All the routing data. */
  readRoutingData(): Promise<RoutingData>;
  /** Per survey: decided entries, standing completes, the yield cut-off's time. */
  yieldCounts(): Promise<SurveyYieldCounts[]>;
  /** Takes the hours that left each window (as of `now`) out of its totals; done by {@link conversionSummary} too. */
  advanceWindows(now: Date): Promise<void>;
  /** Deletes hourly counts older than `before` (the windows need the last 7 days); advance the windows first. */
  pruneHourlyCounts(before: Date): Promise<number>;
  /** Runs a program of a feature over the loop's tables (the session's) that only reads. */
  read<T>(program: Program<T>): Promise<T>;
  /** Runs a program of a feature over the loop's tables in one write transaction (`what` names it in errors); durable when it resolves. */
  write<T>(what: string, program: Program<T>): Promise<T>;
  /** What recording an entry or an outcome needs from the configuration, for a feature's programs that record them. */
  readonly recordingSettings: RecordingSettings;
  close(): Promise<void>;
}

/** The feeds events out publishes. */
export type EventFeed = "outcomes" | "changes";

/** Where one sink of events out stands in one feed (`event_positions`). */
export interface EventPosition {
  /** `nats`, or `webhook:<name>`. */
  readonly sink: string;
  readonly feed: EventFeed;
  /** The last sequence delivered (acknowledged by the sink). */
  readonly position: number;
  readonly updatedAt: string;
  /** Since when the endpoint is marked failing (retried past `SYNC_WEBHOOK_RETRY_HOURS`), else null. */
  readonly failingSince: string | null;
  /** The last delivery error, cleared by the next success. */
  readonly lastError: string | null;
}

/** An outcome-feed record with the uid of the entry its token belongs to (null for an orphan). */
export interface OutcomeWithEntry extends OutcomeRecord {
  readonly uid: string | null;
}
