import { parseJson, toBool, toDate, toIso, toIsoOrNull, toNumberOrNull, type Row } from "../database/row-values.ts";
import type {
  ChangeRecord,
  CollectionRecord,
  LanguageCount,
  QuarantineRecord,
  RunRecord,
  StoreStats,
  StoredSurveyState,
  SurveyStatus,
  SurveySummary,
} from "./store.ts";

/*
 * One mapping per row shape of the inventory store, for the rows of either driver (see
 * database/row-values.ts for how their values differ). The columns are those the statements of
 * inventory-sql.ts select.
 */

/** A row of `inventorySql.surveyStates`. */
export function toSurveyState(row: Row): StoredSurveyState {
  return {
    id: Number(row.id),
    status: row.status as SurveyStatus,
    rawHash: String(row.raw_hash),
    recordHash: String(row.record_hash),
    qualUpdated: String(row.qual_updated),
    quotaUpdated: String(row.quota_updated),
    qualificationsMarker: row.qualifications_marker as string | null,
    quotasMarker: row.quotas_marker as string | null,
    needsRefetch: toBool(row.needs_refetch),
    quotaCount: Number(row.quota_count),
  };
}

/** A row of `surveySummaryColumns`. */
export function toSurveySummary(row: Row): SurveySummary {
  return {
    id: Number(row.id),
    status: row.status as SurveyStatus,
    closedAt: toIsoOrNull(row.closed_at),
    firstSeenAt: toIso(row.first_seen_at),
    changedAt: toIso(row.changed_at),
    needsRefetch: toBool(row.needs_refetch),
    survey: parseJson(row.raw),
  };
}

/** The `raw` column of child rows (qualifications or quotas), parsed, in row order. */
export function toChildRecords(rows: readonly Row[]): unknown[] {
  return rows.map((row) => parseJson(row.raw));
}

/** A row of `runs`. */
export function toRunRecord(row: Row): RunRecord {
  return {
    id: Number(row.id),
    replicaId: String(row.replica_id),
    trigger: row.run_trigger as RunRecord["trigger"],
    status: row.status as RunRecord["status"],
    startedAt: toDate(row.started_at),
    finishedAt: toDate(row.finished_at),
    durationMs: Number(row.duration_ms),
    counts: parseJson(row.counts) as RunRecord["counts"],
    error: row.error as string | null,
    firstSequence: toNumberOrNull(row.first_sequence),
    lastSequence: toNumberOrNull(row.last_sequence),
  };
}

/** A row of `inventorySql.changesAfter`. */
export function toChangeRecord(row: Row): ChangeRecord {
  return {
    sequence: Number(row.sequence),
    type: row.type as ChangeRecord["type"],
    surveyId: Number(row.survey_id),
    runId: Number(row.run_id),
    occurredAt: toIso(row.occurred_at),
  };
}

/** The row of `inventorySql.stats`. */
export function toStoreStats(row: Row): StoreStats {
  return {
    live: Number(row.live),
    closed: Number(row.closed),
    needsRefetch: Number(row.needs_refetch),
    quarantined: Number(row.quarantined),
    latestSequence: Number(row.latest_sequence),
  };
}

/** A row of `inventorySql.countByLanguage`. */
export function toLanguageCount(row: Row): LanguageCount {
  return { languageId: Number(row.language_id), live: Number(row.live), closed: Number(row.closed) };
}

/** A row of `quarantine`. */
export function toQuarantineRecord(row: Row): QuarantineRecord {
  return {
    key: String(row.key),
    surveyId: toNumberOrNull(row.survey_id),
    source: String(row.source),
    firstSeenAt: toIso(row.first_seen_at),
    lastSeenAt: toIso(row.last_seen_at),
    timesSeen: Number(row.times_seen),
    item: parseJson(row.item),
    issues: parseJson(row.issues),
  };
}

/** A row of `inventorySql.collections`. */
export function toCollectionRecord(row: Row): CollectionRecord {
  return { name: String(row.name), fetchedAt: toIso(row.fetched_at), body: parseJson(row.body) };
}
