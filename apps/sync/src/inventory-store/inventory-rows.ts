import { bool, date, integer, isoTime, json, nullable, oneOf, text } from "../database/columns.ts";
import type { RawRow as Row } from "../database/statement.ts";
import {
  changeTypes,
  type ChangeRecord,
  type CollectionRecord,
  type LanguageCount,
  type QuarantineRecord,
  type RunRecord,
  type StoreStats,
  type StoredSurveyState,
  type SurveyStatus,
  type SurveySummary,
} from "./store.ts";

/*
 * The row decoders of the inventory store's statements (inventory-records.ts), one per row
 * shape, for the rows of either driver (see database/columns.ts for how their values differ).
 */

const surveyStatus = oneOf<SurveyStatus>(["live", "closed"]);
const runTrigger = oneOf<RunRecord["trigger"]>(["schedule", "manual", "startup"]);
const runStatus = oneOf<RunRecord["status"]>(["succeeded", "failed"]);
const changeType = oneOf(changeTypes);

/** A row of the survey states. */
export function toSurveyState(row: Row): StoredSurveyState {
  return {
    id: integer(row.id),
    status: surveyStatus(row.status),
    rawHash: text(row.raw_hash),
    recordHash: text(row.record_hash),
    qualUpdated: text(row.qual_updated),
    quotaUpdated: text(row.quota_updated),
    qualificationsMarker: nullable(text)(row.qualifications_marker),
    quotasMarker: nullable(text)(row.quotas_marker),
    needsRefetch: bool(row.needs_refetch),
    quotaCount: integer(row.quota_count),
  };
}

/** A row of `surveySummaryColumns` (inventory-records.ts). */
export function toSurveySummary(row: Row): SurveySummary {
  return {
    id: integer(row.id),
    status: surveyStatus(row.status),
    closedAt: nullable(isoTime)(row.closed_at),
    firstSeenAt: isoTime(row.first_seen_at),
    changedAt: isoTime(row.changed_at),
    needsRefetch: bool(row.needs_refetch),
    survey: json(row.raw),
  };
}

/** The `raw` column of child rows (qualifications or quotas), parsed, in row order. */
export function toChildRecords(rows: readonly Row[]): unknown[] {
  return rows.map((row) => json(row.raw));
}

/** A row of `runs`. */
export function toRunRecord(row: Row): RunRecord {
  return {
    id: integer(row.id),
    replicaId: text(row.replica_id),
    trigger: runTrigger(row.run_trigger),
    status: runStatus(row.status),
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
    durationMs: integer(row.duration_ms),
    counts: json(row.counts) as RunRecord["counts"],
    error: nullable(text)(row.error),
    firstSequence: nullable(integer)(row.first_sequence),
    lastSequence: nullable(integer)(row.last_sequence),
  };
}

/** A row of the change feed. */
export function toChangeRecord(row: Row): ChangeRecord {
  return {
    sequence: integer(row.sequence),
    type: changeType(row.type),
    surveyId: integer(row.survey_id),
    runId: integer(row.run_id),
    occurredAt: isoTime(row.occurred_at),
  };
}

/** The row of the store's counts. */
export function toStoreStats(row: Row): StoreStats {
  return {
    live: integer(row.live),
    closed: integer(row.closed),
    needsRefetch: integer(row.needs_refetch),
    quarantined: integer(row.quarantined),
    latestSequence: integer(row.latest_sequence),
  };
}

/** A row of the counts by language. */
export function toLanguageCount(row: Row): LanguageCount {
  return { languageId: integer(row.language_id), live: integer(row.live), closed: integer(row.closed) };
}

/** A row of `quarantine`. */
export function toQuarantineRecord(row: Row): QuarantineRecord {
  return {
    key: text(row.key),
    surveyId: nullable(integer)(row.survey_id),
    source: text(row.source),
    firstSeenAt: isoTime(row.first_seen_at),
    lastSeenAt: isoTime(row.last_seen_at),
    timesSeen: integer(row.times_seen),
    item: json(row.item),
    issues: json(row.issues),
  };
}

/** A row of `collections`. */
export function toCollectionRecord(row: Row): CollectionRecord {
  return { name: text(row.name), fetchedAt: isoTime(row.fetched_at), body: json(row.body) };
}
