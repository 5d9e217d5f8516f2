import { integer, text } from "../database/columns.ts";
import { execute, first, one, rows, type Program } from "../database/program.ts";
import { command, statement, type RawRow } from "../database/statement.ts";
import {
  toChangeRecord,
  toChildRecords,
  toCollectionRecord,
  toLanguageCount,
  toQuarantineRecord,
  toRunRecord,
  toStoreStats,
  toSurveyState,
  toSurveySummary,
} from "./inventory-rows.ts";
import { surveyQueryWhere } from "./sql-filters.ts";
import type {
  ChangeRecord,
  CollectionInput,
  CollectionRecord,
  LanguageCount,
  QuarantineRecord,
  RunInput,
  RunRecord,
  StoreStats,
  StoredSurveyState,
  SurveyDetail,
  SurveyPage,
  SurveyQuery,
} from "./store.ts";

/*
 * The inventory store's statements and the programs over them, once for both drivers (see
 * database/program.ts): the reads of the HTTP API, the run records and the collections. Times
 * are bound as ISO 8601 text (SQLite stores that text; PostgreSQL reads it into timestamptz).
 * What stays per driver is what really differs: the cycle's bulk writes (`unnest` arrays on
 * PostgreSQL, one prepared row at a time on SQLite), leadership and transactions.
 */

/** The columns `toSurveySummary` (inventory-rows.ts) reads. */
export const surveySummaryColumns = "id, status, closed_at, first_seen_at, changed_at, needs_refetch, raw";

const SURVEY_STATES = statement<[], StoredSurveyState>(
  "SELECT id, status, raw_hash, record_hash, qual_updated, quota_updated, qualifications_marker, quotas_marker, needs_refetch, quota_count FROM surveys",
  toSurveyState,
);
const SURVEYS_BY_ID = statement<[ids: readonly number[]], ReturnType<typeof toSurveySummary>>(
  (dialect) => `SELECT ${surveySummaryColumns} FROM surveys WHERE ${dialect.inList("id", "bigint")}`,
  toSurveySummary,
);
/** A child row (`qualifications`, `quotas`) with its survey. */
interface ChildRow {
  readonly surveyId: number;
  readonly row: RawRow;
}
const childrenOf = (table: "qualifications" | "quotas") =>
  statement<[surveyIds: readonly number[]], ChildRow>(
    (dialect) =>
      `SELECT survey_id, raw FROM ${table} WHERE ${dialect.inList("survey_id", "bigint")} ORDER BY survey_id, position`,
    (row) => ({ surveyId: integer(row.survey_id), row }),
  );
const QUALIFICATIONS_OF = childrenOf("qualifications");
const QUOTAS_OF = childrenOf("quotas");
const RECORDS_BY_ID = statement<[ids: readonly number[]], readonly [id: number, raw: string]>(
  (dialect) => `SELECT id, raw FROM surveys WHERE ${dialect.inList("id", "bigint")}`,
  // `raw` arrives as the text stored (a `json` column keeps it verbatim), not parsed by the driver.
  (row) => [integer(row.id), text(row.raw)],
);
const REFETCH_PENDING = statement<[], number>(
  "SELECT id FROM surveys WHERE status = 'live' AND needs_refetch ORDER BY id",
  (row) => integer(row.id),
);
const CHANGES_AFTER = statement<[after: number, limit: number], ChangeRecord>(
  "SELECT sequence, type, survey_id, run_id, occurred_at FROM changes WHERE sequence > ? ORDER BY sequence LIMIT ?",
  toChangeRecord,
);
/** The change feed's latest sequence (the counter row). */
const LATEST_SEQUENCE = statement<[], number>("SELECT value FROM counters WHERE name = 'changes'", (row) =>
  integer(row.value),
);
const RECENT_RUNS = statement<[limit: number], RunRecord>("SELECT * FROM runs ORDER BY id DESC LIMIT ?", toRunRecord);
const LAST_SUCCESSFUL_RUN = statement<[], RunRecord>(
  "SELECT * FROM runs WHERE status = 'succeeded' ORDER BY id DESC LIMIT 1",
  toRunRecord,
);
// One statement, so the counts come from one snapshot.
const STATS = statement<[], StoreStats>(
  `SELECT COALESCE(SUM(CASE WHEN status = 'live' THEN 1 ELSE 0 END), 0) AS live,
      COALESCE(SUM(CASE WHEN status = 'closed' THEN 1 ELSE 0 END), 0) AS closed,
      COALESCE(SUM(CASE WHEN needs_refetch AND status = 'live' THEN 1 ELSE 0 END), 0) AS needs_refetch,
      (SELECT COUNT(*) FROM quarantine WHERE resolved_at IS NULL) AS quarantined,
      (SELECT value FROM counters WHERE name = 'changes') AS latest_sequence
    FROM surveys`,
  toStoreStats,
);
const COUNT_BY_LANGUAGE = statement<[], LanguageCount>(
  `SELECT language_id, SUM(CASE WHEN status = 'live' THEN 1 ELSE 0 END) AS live, SUM(CASE WHEN status = 'closed' THEN 1 ELSE 0 END) AS closed
    FROM surveys GROUP BY language_id ORDER BY language_id`,
  toLanguageCount,
);
const UNRESOLVED_QUARANTINE = statement<[limit: number], QuarantineRecord>(
  "SELECT * FROM quarantine WHERE resolved_at IS NULL ORDER BY last_seen_at DESC, key LIMIT ?",
  toQuarantineRecord,
);
const COLLECTIONS = statement<[], CollectionRecord>(
  "SELECT name, fetched_at, body FROM collections ORDER BY name",
  toCollectionRecord,
);
const COLLECTION = statement<[name: string], CollectionRecord>(
  "SELECT name, fetched_at, body FROM collections WHERE name = ?",
  toCollectionRecord,
);
const UPSERT_COLLECTION = command<[name: string, fetchedAt: string, body: string]>(
  "INSERT INTO collections (name, fetched_at, body) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body",
);
/** The feed's horizon in one statement, so the feed and the counter come from one snapshot. */
const FEED_HORIZON = statement<[], number>(
  "SELECT COALESCE((SELECT MIN(sequence) FROM changes) - 1, (SELECT value FROM counters WHERE name = 'changes')) AS horizon",
  (row) => integer(row.horizon),
);

/** The eight parameters of a run record, in the order {@link INSERT_RUN} and a cycle's completion (cycle-records.ts) bind them first. */
export type RunParams = [
  replicaId: string,
  trigger: string,
  status: string,
  startedAt: string,
  finishedAt: string,
  durationMs: number,
  counts: string,
  error: string | null,
];

/** The run parameters of a run record. */
export function runParams(run: RunInput): RunParams {
  return [
    run.replicaId,
    run.trigger,
    run.status,
    run.startedAt.toISOString(),
    run.finishedAt.toISOString(),
    Math.round(run.finishedAt.getTime() - run.startedAt.getTime()),
    JSON.stringify(run.counts),
    run.error,
  ];
}

const INSERT_RUN = statement<[...RunParams, firstSequence: number | null, lastSequence: number | null], number>(
  `INSERT INTO runs (replica_id, run_trigger, status, started_at, finished_at, duration_ms, counts, error, first_sequence, last_sequence)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  (row) => integer(row.id),
);
/** What the cycle diffs against. */
export function* loadSurveyStates(): Program<StoredSurveyState[]> {
  return yield* rows(SURVEY_STATES);
}

/** Several surveys with their children, in `ids` order: three statements for any count. */
export function* getSurveys(ids: readonly number[]): Program<SurveyDetail[]> {
  if (ids.length === 0) return [];
  const surveys = new Map((yield* rows(SURVEYS_BY_ID, ids)).map((survey) => [survey.id, survey]));
  const qualifications = groupBySurvey(yield* rows(QUALIFICATIONS_OF, ids));
  const quotas = groupBySurvey(yield* rows(QUOTAS_OF, ids));
  return ids.flatMap((id) => {
    const survey = surveys.get(id);
    return survey
      ? [
          {
            ...survey,
            qualifications: toChildRecords(qualifications.get(id) ?? []),
            quotas: toChildRecords(quotas.get(id) ?? []),
          },
        ]
      : [];
  });
}

/** Child rows by survey, in row order. */
function groupBySurvey(children: readonly ChildRow[]): Map<number, RawRow[]> {
  const bySurvey = new Map<number, RawRow[]>();
  for (const { surveyId, row } of children) {
    const list = bySurvey.get(surveyId);
    if (list) list.push(row);
    else bySurvey.set(surveyId, [row]);
  }
  return bySurvey;
}

/** One survey with its children. */
export function* getSurvey(id: number): Program<SurveyDetail | undefined> {
  return (yield* getSurveys([id]))[0];
}

/** The stored records of several surveys as JSON text, by id. */
export function* surveyRecords(ids: readonly number[]): Program<Map<number, string>> {
  if (ids.length === 0) return new Map();
  return new Map(yield* rows(RECORDS_BY_ID, ids));
}

/** One page of `GET /v1/surveys`: one row more than the page, to tell whether more follow. */
export function* listSurveys(query: SurveyQuery): Program<SurveyPage> {
  const { where, params } = surveyQueryWhere(query);
  // A text per shape of the filters: compiled and prepared once per shape (the caches are bounded).
  const page = statement<typeof params, ReturnType<typeof toSurveySummary>>(
    `SELECT ${surveySummaryColumns} FROM surveys ${where} ORDER BY id LIMIT ?`,
    toSurveySummary,
  );
  const found = yield* rows(page, ...params, query.limit + 1);
  const hasMore = found.length > query.limit;
  const surveys = found.slice(0, query.limit);
  return { surveys, hasMore, lastId: hasMore ? (surveys.at(-1)?.id ?? null) : null };
}

/** Live surveys awaiting a refetch of their children. */
export function* refetchPendingIds(): Program<number[]> {
  return yield* rows(REFETCH_PENDING);
}

/** The change feed after `after`. */
export function* listChanges(after: number, limit: number): Program<ChangeRecord[]> {
  return yield* rows(CHANGES_AFTER, after, limit);
}

/** The change feed's latest sequence, 0 before the first change. */
export function* latestSequence(): Program<number> {
  return (yield* first(LATEST_SEQUENCE)) ?? 0;
}

/** Most recent runs first. */
export function* listRuns(limit: number): Program<RunRecord[]> {
  return yield* rows(RECENT_RUNS, limit);
}

/** The last successful run, if any. */
export function* lastSuccessfulRun(): Program<RunRecord | undefined> {
  return yield* first(LAST_SUCCESSFUL_RUN);
}

/** Counts for metrics and status. */
export function* stats(): Program<StoreStats> {
  return yield* one(STATS);
}

/** Surveys per language. */
export function* countByLanguage(): Program<LanguageCount[]> {
  return yield* rows(COUNT_BY_LANGUAGE);
}

/** The unresolved quarantine, most recently seen first. */
export function* listQuarantine(limit: number): Program<QuarantineRecord[]> {
  return yield* rows(UNRESOLVED_QUARANTINE, limit);
}

/** The change feed's horizon. */
export function* feedHorizon(): Program<number> {
  return yield* one(FEED_HORIZON);
}

/** Records a run alone (a cycle that failed before it had anything to commit). */
export function* recordRun(run: RunInput): Program<number> {
  return yield* one(INSERT_RUN, ...runParams(run), null, null);
}

/** Replaces the given reference collections. */
export function* saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Program<void> {
  for (const collection of collections)
    yield* execute(UPSERT_COLLECTION, collection.name, fetchedAt.toISOString(), collection.body);
}

/** Every reference collection. */
export function* listCollections(): Program<CollectionRecord[]> {
  return yield* rows(COLLECTIONS);
}

/** One reference collection by name. */
export function* getCollection(name: string): Program<CollectionRecord | undefined> {
  return yield* first(COLLECTION, name);
}
