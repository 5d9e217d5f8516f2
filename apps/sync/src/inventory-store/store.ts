import type { Device } from "@sds/schemas";
import type { ChangeType } from "@sds/sync-client";
import type { RetentionStore } from "./inventory-retention.ts";

/**
 * The one interface both stores implement (SQLite embedded, PostgreSQL in production). The
 * cycle writes through {@link SyncStore.commitCycle} only, in one transaction; the HTTP API
 * reads through the query methods; retention prunes through {@link RetentionStore}. Every method
 * is async so both implementations fit.
 */
export interface SyncStore extends RetentionStore {
  /** Which implementation this is, for logs and `/v1/sync/status`. */
  readonly kind: "sqlite" | "postgres";
  /** Leadership among replicas sharing this store. */
  readonly leadership: Leadership;

  /** What the cycle needs of every stored survey to diff against the live list without reading raw records. */
  loadSurveyStates(): Promise<StoredSurveyState[]>;
  /**
   * Opens the transaction of one cycle. The cycle writes its batches as its fetches complete (so
   * memory stays bounded by the batch, not the inventory) and commits once at the end; nothing
   * is visible to readers before the commit, and a rollback or a killed process leaves no trace.
   * One cycle transaction at a time.
   */
  beginCycle(at: Date): Promise<CycleTransaction>;
  /** Writes one cycle atomically in one call: {@link SyncStore.beginCycle}, one batch, commit. */
  commitCycle(commit: CycleCommit): Promise<CommitOutcome>;
  /** Writes a run record alone: a cycle that failed before it had anything to commit. */
  recordRun(run: RunInput): Promise<number>;

  listSurveys(query: SurveyQuery): Promise<SurveyPage>;
  getSurvey(id: number): Promise<SurveyDetail | undefined>;
  /** Several surveys with their qualifications and quotas, in `ids` order; ids not stored are left out. */
  getSurveys(ids: readonly number[]): Promise<SurveyDetail[]>;
  /**
   * The stored records of several surveys as JSON text (the upstream record as last received,
   * whatever its status), by id; ids not stored are left out. What answers that list surveys send,
   * without parsing a record to serialise it again.
   */
  surveyRecords(ids: readonly number[]): Promise<Map<number, string>>;
  /** Ids of the live surveys awaiting a refetch of their qualifications or quotas, ascending. */
  refetchPendingIds(): Promise<number[]>;
  /** Changes with a sequence number above `after`, oldest first. */
  listChanges(after: number, limit: number): Promise<ChangeRecord[]>;
  /** The highest sequence number handed out, 0 before the first change. */
  latestSequence(): Promise<number>;
  /** Most recent runs first. */
  listRuns(limit: number): Promise<RunRecord[]>;
  lastSuccessfulRun(): Promise<RunRecord | undefined>;
  /** Counts for metrics and status. */
  stats(): Promise<StoreStats>;
  /** Live and closed surveys per `LanguageId`, by language id. For the status page. */
  countByLanguage(): Promise<LanguageCount[]>;
  /** Items in quarantine now (unresolved), most recently seen first. */
  listQuarantine(limit: number): Promise<QuarantineRecord[]>;

  /** Replaces the given reference collections (others are kept) in one transaction. */
  saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Promise<void>;
  listCollections(): Promise<CollectionRecord[]>;
  /** One reference collection by name (`studyTypes`, …), or undefined while it was never saved: one row, not all. */
  getCollection(name: string): Promise<CollectionRecord | undefined>;

  /** Ends leadership and closes every connection. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Leadership: exactly one replica runs cycles. On PostgreSQL a session advisory lock on a
 * dedicated connection (released by the server when that connection dies, so a survivor
 * takes over); on SQLite the single process always leads.
 */
export interface Leadership {
  /** Takes leadership if free, confirms it if already held. Resolves whether this replica leads. */
  acquire(): Promise<boolean>;
  /** Whether this replica led at the last {@link Leadership.acquire}. */
  readonly isLeader: boolean;
  /** Gives leadership up so another replica can take it at once. */
  release(): Promise<void>;
  /**
   * Tells the other replicas who this one is, should it lead: its id and the URL of its API.
   * Only where replicas share a store (PostgreSQL).
   */
  announce?(replicaId: string, apiUrl: string): Promise<void>;
  /** The replica that holds leadership now, as it announced itself, where that can be read. */
  holder?(): Promise<LeaderIdentity | undefined>;
}

/** Which replica leads, as a follower reports it. */
export interface LeaderIdentity {
  /** The leader's replica id; may end early when it was too long to announce whole. */
  readonly id: string;
  /** Where its API may be reached (the address its database connection comes from, and its port), when known. */
  readonly address?: string;
}

/** Live or closed: a survey absent from the live list is kept as closed, never deleted. */
export type SurveyStatus = "live" | "closed";

/* The kinds of change are part of sds-sync's HTTP contract (the change feed), owned by `@sds/sync-client`. */
export { changeTypes, type ChangeType } from "@sds/sync-client";

/** The diff-relevant state of one stored survey. */
export interface StoredSurveyState {
  readonly id: number;
  readonly status: SurveyStatus;
  /** Hash of the record exactly as received: any difference means the stored row must be rewritten. */
  readonly rawHash: string;
  /** Hash of the record without its three timestamps (see `contentHash`): a difference is an `updated` survey. */
  readonly recordHash: string;
  /** `Qual_LastUpdatedOnUTC` of the stored record. */
  readonly qualUpdated: string;
  /** `Quota_LastUpdatedOnUTC` of the stored record. */
  readonly quotaUpdated: string;
  /** The `Qual_LastUpdatedOnUTC` at which the stored qualifications were fetched; null when never fetched. */
  readonly qualificationsMarker: string | null;
  /** The `Quota_LastUpdatedOnUTC` at which the stored quotas were fetched; null when never fetched or `Has_Quotas` was false. */
  readonly quotasMarker: string | null;
  /** A per-survey fetch failed: refetch next cycle. */
  readonly needsRefetch: boolean;
  readonly quotaCount: number;
}

/** Indexed columns of a survey, derived from its record (see `surveyColumns`). */
export interface SurveyColumns {
  readonly languageId: number;
  readonly cpi: number;
  readonly loi: number;
  readonly ir: number;
  readonly desktopAllowed: boolean;
  readonly mobileAllowed: boolean;
  readonly tabletAllowed: boolean;
  readonly lastUpdated: string;
  readonly qualUpdated: string;
  readonly quotaUpdated: string;
}

/** One live survey to insert or replace. */
export interface SurveyWrite {
  readonly id: number;
  /** The record as received, JSON. */
  readonly raw: string;
  readonly rawHash: string;
  readonly recordHash: string;
  readonly columns: SurveyColumns;
  readonly qualificationsMarker: string | null;
  readonly quotasMarker: string | null;
  /** Quotas stored for the survey after this commit. */
  readonly quotaCount: number;
  readonly needsRefetch: boolean;
}

/** New child records of one survey, replacing the stored ones. */
export interface ChildReplacement {
  readonly surveyId: number;
  /** Each record as received, JSON, in upstream order. */
  readonly records: readonly ChildRecordWrite[];
}

/** One qualification or quota record with its indexed id. */
export interface ChildRecordWrite {
  /** `QualificationId` or `QuotaId`, null when the record has none. */
  readonly key: number | null;
  /** `QualificationTypeId` for qualifications, null for quotas. */
  readonly typeId: number | null;
  readonly raw: string;
}

/** A malformed upstream item, quarantined (deduplicated by `key`). */
export interface QuarantineInput {
  /** `survey:<SurveyId>` when the item has a usable id, else a hash of the item. */
  readonly key: string;
  readonly surveyId: number | null;
  readonly source: "surveys" | "qualifications" | "quotas";
  readonly item: string;
  readonly issues: string;
}

/** Counts of one cycle. */
export interface RunCounts {
  readonly listed: number;
  readonly opened: number;
  readonly updated: number;
  readonly closed: number;
  readonly reopened: number;
  readonly qualificationsChanged: number;
  readonly quotasChanged: number;
  readonly qualificationsFetched: number;
  readonly quotasFetched: number;
  readonly fetchFailures: number;
  readonly quarantined: number;
  readonly upstreamRequests: number;
  readonly changes: number;
  /** Surveys absent from the list but held by the mass-closure guard (still served as live). Absent from runs stored before the guard existed. */
  readonly closuresHeld?: number;
}

/** A run record before it is stored. */
export interface RunInput {
  readonly replicaId: string;
  readonly trigger: "schedule" | "manual" | "startup";
  readonly status: "succeeded" | "failed";
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly counts: RunCounts;
  readonly error: string | null;
}

/** A stored run. */
export interface RunRecord extends RunInput {
  readonly id: number;
  readonly durationMs: number;
  /** Sequence numbers of this run's changes, null when it had none. */
  readonly firstSequence: number | null;
  readonly lastSequence: number | null;
}

/** The open transaction of one cycle. */
export interface CycleTransaction {
  /** Writes a batch; its changes get the next sequence numbers, in the order given. */
  write(batch: CycleBatch): Promise<void>;
  /** Records the run and commits everything written. */
  commit(run: RunInput): Promise<CommitOutcome>;
  /** Discards everything written. Safe after a failed write. */
  rollback(): Promise<void>;
}

/** Part of what one cycle writes. */
export interface CycleBatch {
  readonly surveys: readonly SurveyWrite[];
  /** Surveys absent from the live list this cycle. */
  readonly closedSurveyIds: readonly number[];
  readonly qualifications: readonly ChildReplacement[];
  readonly quotas: readonly ChildReplacement[];
  /** In feed order; sequence numbers are allocated inside the transaction. */
  readonly changes: readonly { readonly type: ChangeType; readonly surveyId: number }[];
  readonly quarantine: readonly QuarantineInput[];
  /**
   * Quarantine keys whose item came back in good shape (a survey's qualifications or quotas
   * fetched and valid): resolved. Besides these, a commit resolves every entry of the live list
   * that this cycle did not see again, and the entries of surveys it closed.
   */
  readonly resolvedQuarantineKeys: readonly string[];
}

/** Everything one cycle writes, in one transaction. */
export interface CycleCommit extends CycleBatch {
  readonly run: RunInput;
  /** Time stamped on closed surveys and changes. */
  readonly at: Date;
}

/** What a commit allocated. */
export interface CommitOutcome {
  readonly runId: number;
  readonly firstSequence: number | null;
  readonly lastSequence: number | null;
}

/** One entry of the change feed. */
export interface ChangeRecord {
  readonly sequence: number;
  readonly type: ChangeType;
  readonly surveyId: number;
  readonly runId: number;
  readonly occurredAt: string;
}

/** Filters and page of `GET /v1/surveys`. */
export interface SurveyQuery {
  readonly status: SurveyStatus | "all";
  readonly languageIds?: readonly number[];
  readonly minCpi?: number;
  readonly maxCpi?: number;
  readonly maxLoi?: number;
  /** The survey must allow every one of these devices. */
  readonly devices?: readonly Device[];
  /** Only surveys whose stored copy changed at or after this time. */
  readonly updatedSince?: Date;
  /** Keyset pagination: ids above this one. */
  readonly afterId?: number;
  readonly limit: number;
}

/** A stored survey with its sync metadata. */
export interface SurveySummary {
  readonly id: number;
  readonly status: SurveyStatus;
  readonly closedAt: string | null;
  readonly firstSeenAt: string;
  readonly changedAt: string;
  readonly needsRefetch: boolean;
  /** The upstream record as last received. */
  readonly survey: unknown;
}

/** A survey with its qualifications and quotas. */
export interface SurveyDetail extends SurveySummary {
  readonly qualifications: unknown[];
  readonly quotas: unknown[];
}

/** One page of surveys. */
export interface SurveyPage {
  readonly surveys: SurveySummary[];
  /** Set when more surveys may follow: pass as `afterId` for the next page. */
  readonly lastId: number | null;
  readonly hasMore: boolean;
}

/** Counts for metrics and readiness. */
export interface StoreStats {
  readonly live: number;
  readonly closed: number;
  /** Live surveys whose children must be fetched again (a closed survey is fetched afresh if it reopens). */
  readonly needsRefetch: number;
  /** Items in quarantine now (resolved ones are history). */
  readonly quarantined: number;
  readonly latestSequence: number;
}

/** Surveys of one language. */
export interface LanguageCount {
  readonly languageId: number;
  readonly live: number;
  readonly closed: number;
}

/** A quarantined item. */
export interface QuarantineRecord {
  readonly key: string;
  readonly surveyId: number | null;
  readonly source: string;
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
  readonly timesSeen: number;
  readonly item: unknown;
  readonly issues: unknown;
}

/** A reference collection to store. */
export interface CollectionInput {
  readonly name: string;
  /** The response body as received, JSON. */
  readonly body: string;
}

/** A stored reference collection. */
export interface CollectionRecord {
  readonly name: string;
  readonly fetchedAt: string;
  readonly body: unknown;
}

/** Counts with every field zero: the start of a cycle's tally. */
export function emptyRunCounts(): RunCounts {
  return {
    listed: 0,
    opened: 0,
    updated: 0,
    closed: 0,
    reopened: 0,
    qualificationsChanged: 0,
    quotasChanged: 0,
    qualificationsFetched: 0,
    quotasFetched: 0,
    fetchFailures: 0,
    quarantined: 0,
    upstreamRequests: 0,
    changes: 0,
    closuresHeld: 0,
  };
}
