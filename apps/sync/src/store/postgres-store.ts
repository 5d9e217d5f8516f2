import type pg from "pg";
import { syncLedger } from "./migrations.ts";
import { openMigratedPool, type PostgresSchemaOptions } from "../database/postgres-migrate.ts";
import { inPostgresTransaction } from "../database/postgres-transaction.ts";
import { withStoreErrors } from "../database/store-errors.ts";
import { PostgresCycleTransaction } from "./postgres-cycle-transaction.ts";
import { PostgresLeadership } from "./postgres-leadership.ts";
import { POSTGRES_FEED_HORIZON, prunePostgresTarget } from "./postgres-retention.ts";
import type { PruneBatchOutcome, PruneTarget } from "./retention.ts";
import { surveyQueryWhere } from "./sql-filters.ts";
import type {
  ChangeRecord,
  CollectionInput,
  CollectionRecord,
  CommitOutcome,
  CycleCommit,
  CycleTransaction,
  QuarantineRecord,
  RunInput,
  RunRecord,
  LanguageCount,
  StoreStats,
  StoredSurveyState,
  SurveyDetail,
  SurveyPage,
  SurveyQuery,
  SurveyStatus,
  SurveySummary,
  SyncStore,
} from "./store.ts";

/**
 * Opens the PostgreSQL store, creating the schema and applying pending migrations under an
 * advisory transaction lock, so replicas starting together migrate once. `poolSize` is the
 * connections for reads and commits (leadership uses one more), 5 unless given.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ connectionString: "postgres://postgres@127.0.0.1/test", schema: "sds" });
 * ```
 */
export async function openPostgresStore(options: PostgresSchemaOptions): Promise<SyncStore> {
  const { pool, schema } = await openMigratedPool(options, 5, syncLedger, "PostgreSQL store");
  return withStoreErrors(new PostgresStore(pool, new PostgresLeadership(options.connectionString, schema)));
}

const iso = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value));

class PostgresStore implements SyncStore {
  readonly kind = "postgres" as const;
  readonly leadership: PostgresLeadership;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(pool: pg.Pool, leadership: PostgresLeadership) {
    this.#pool = pool;
    this.leadership = leadership;
  }

  async loadSurveyStates(): Promise<StoredSurveyState[]> {
    const result = await this.#pool.query<{
      id: string;
      status: SurveyStatus;
      raw_hash: string;
      record_hash: string;
      qual_updated: string;
      quota_updated: string;
      qualifications_marker: string | null;
      quotas_marker: string | null;
      needs_refetch: boolean;
      quota_count: number;
    }>("SELECT id, status, raw_hash, record_hash, qual_updated, quota_updated, qualifications_marker, quotas_marker, needs_refetch, quota_count FROM surveys");
    return result.rows.map((row) => ({
      id: Number(row.id),
      status: row.status,
      rawHash: row.raw_hash,
      recordHash: row.record_hash,
      qualUpdated: row.qual_updated,
      quotaUpdated: row.quota_updated,
      qualificationsMarker: row.qualifications_marker,
      quotasMarker: row.quotas_marker,
      needsRefetch: row.needs_refetch,
      quotaCount: row.quota_count,
    }));
  }

  async beginCycle(at: Date): Promise<CycleTransaction> {
    return withStoreErrors(await PostgresCycleTransaction.begin(this.#pool, this.leadership, at), () => "cycle commit");
  }

  async commitCycle(commit: CycleCommit): Promise<CommitOutcome> {
    const transaction = await this.beginCycle(commit.at);
    try {
      await transaction.write(commit);
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    return transaction.commit(commit.run);
  }

  async #insertRun(client: pg.ClientBase, run: RunInput, firstSequence: number | null, lastSequence: number | null): Promise<number> {
    const result = await client.query<{ id: string }>(
      `INSERT INTO runs (replica_id, run_trigger, status, started_at, finished_at, duration_ms, counts, error, first_sequence, last_sequence)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        run.replicaId, run.trigger, run.status, run.startedAt, run.finishedAt,
        Math.round(run.finishedAt.getTime() - run.startedAt.getTime()), JSON.stringify(run.counts), run.error, firstSequence, lastSequence,
      ],
    );
    return Number(result.rows[0]?.id);
  }

  async recordRun(run: RunInput): Promise<number> {
    return this.#transaction("run record", (client) => this.#insertRun(client, run, null, null));
  }

  #transaction<T>(what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inPostgresTransaction(this.#pool, what, work);
  }

  async listSurveys(query: SurveyQuery): Promise<SurveyPage> {
    const { where, params } = surveyQueryWhere(query, (index) => `$${index}`, (time) => time, "true");
    const result = await this.#pool.query<SummaryRow>(`SELECT ${summaryColumns} FROM surveys ${where} ORDER BY id LIMIT $${params.length + 1}`, [
      ...params,
      query.limit + 1,
    ]);
    const hasMore = result.rows.length > query.limit;
    const surveys = result.rows.slice(0, query.limit).map(toSummary);
    return { surveys, hasMore, lastId: hasMore ? (surveys.at(-1)?.id ?? null) : null };
  }

  async getSurvey(id: number): Promise<SurveyDetail | undefined> {
    const [survey, qualifications, quotas] = await Promise.all([
      this.#pool.query<SummaryRow>(`SELECT ${summaryColumns} FROM surveys WHERE id = $1`, [id]),
      this.#pool.query<{ raw: unknown }>("SELECT raw FROM qualifications WHERE survey_id = $1 ORDER BY position", [id]),
      this.#pool.query<{ raw: unknown }>("SELECT raw FROM quotas WHERE survey_id = $1 ORDER BY position", [id]),
    ]);
    const row = survey.rows[0];
    if (!row) return undefined;
    return { ...toSummary(row), qualifications: qualifications.rows.map((r) => r.raw), quotas: quotas.rows.map((r) => r.raw) };
  }

  async getSurveys(ids: readonly number[]): Promise<SurveyDetail[]> {
    if (ids.length === 0) return [];
    const list = [...ids];
    const [surveys, qualifications, quotas] = await Promise.all([
      this.#pool.query<SummaryRow>(`SELECT ${summaryColumns} FROM surveys WHERE id = ANY($1::bigint[])`, [list]),
      this.#pool.query<{ survey_id: string; raw: unknown }>("SELECT survey_id, raw FROM qualifications WHERE survey_id = ANY($1::bigint[]) ORDER BY survey_id, position", [list]),
      this.#pool.query<{ survey_id: string; raw: unknown }>("SELECT survey_id, raw FROM quotas WHERE survey_id = ANY($1::bigint[]) ORDER BY survey_id, position", [list]),
    ]);
    const group = (rows: readonly { survey_id: string; raw: unknown }[]) => {
      const bySurvey = new Map<number, unknown[]>();
      for (const row of rows) {
        const id = Number(row.survey_id);
        const records = bySurvey.get(id) ?? [];
        records.push(row.raw);
        bySurvey.set(id, records);
      }
      return bySurvey;
    };
    const qualificationsBySurvey = group(qualifications.rows);
    const quotasBySurvey = group(quotas.rows);
    const byId = new Map(surveys.rows.map((row) => [Number(row.id), row]));
    return list.flatMap((id) => {
      const row = byId.get(id);
      return row ? [{ ...toSummary(row), qualifications: qualificationsBySurvey.get(id) ?? [], quotas: quotasBySurvey.get(id) ?? [] }] : [];
    });
  }

  async surveyRecords(ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    // `raw::text`: the text as stored (a `json` column keeps it verbatim), not parsed by the driver.
    const result = await this.#pool.query<{ id: string; raw: string }>("SELECT id, raw::text AS raw FROM surveys WHERE id = ANY($1::bigint[])", [[...ids]]);
    return new Map(result.rows.map((row) => [Number(row.id), row.raw]));
  }

  async refetchPendingIds(): Promise<number[]> {
    const result = await this.#pool.query<{ id: string }>("SELECT id FROM surveys WHERE status = 'live' AND needs_refetch ORDER BY id");
    return result.rows.map((row) => Number(row.id));
  }

  async listChanges(after: number, limit: number): Promise<ChangeRecord[]> {
    const result = await this.#pool.query<{ sequence: string; type: ChangeRecord["type"]; survey_id: string; run_id: string; occurred_at: Date }>(
      "SELECT sequence, type, survey_id, run_id, occurred_at FROM changes WHERE sequence > $1 ORDER BY sequence LIMIT $2",
      [after, limit],
    );
    return result.rows.map((row) => ({
      sequence: Number(row.sequence),
      type: row.type,
      surveyId: Number(row.survey_id),
      runId: Number(row.run_id),
      occurredAt: iso(row.occurred_at),
    }));
  }

  async latestSequence(): Promise<number> {
    const result = await this.#pool.query<{ value: string }>("SELECT value FROM counters WHERE name = 'changes'");
    return Number(result.rows[0]?.value ?? 0);
  }

  async listRuns(limit: number): Promise<RunRecord[]> {
    const result = await this.#pool.query<RunRow>("SELECT * FROM runs ORDER BY id DESC LIMIT $1", [limit]);
    return result.rows.map(toRunRecord);
  }

  async lastSuccessfulRun(): Promise<RunRecord | undefined> {
    const result = await this.#pool.query<RunRow>("SELECT * FROM runs WHERE status = 'succeeded' ORDER BY id DESC LIMIT 1");
    const row = result.rows[0];
    return row ? toRunRecord(row) : undefined;
  }

  async stats(): Promise<StoreStats> {
    const result = await this.#pool.query<{ live: number; closed: number; needs_refetch: number; quarantined: number; latest: string }>(`
      SELECT count(*) FILTER (WHERE status = 'live')::int AS live, count(*) FILTER (WHERE status = 'closed')::int AS closed,
        count(*) FILTER (WHERE needs_refetch AND status = 'live')::int AS needs_refetch,
        (SELECT count(*) FROM quarantine WHERE resolved_at IS NULL)::int AS quarantined,
        (SELECT value FROM counters WHERE name = 'changes') AS latest
      FROM surveys`);
    const row = result.rows[0];
    return {
      live: row?.live ?? 0,
      closed: row?.closed ?? 0,
      needsRefetch: row?.needs_refetch ?? 0,
      quarantined: row?.quarantined ?? 0,
      latestSequence: Number(row?.latest ?? 0),
    };
  }

  async listQuarantine(limit: number): Promise<QuarantineRecord[]> {
    const result = await this.#pool.query<{
      key: string;
      survey_id: string | null;
      source: string;
      first_seen_at: Date;
      last_seen_at: Date;
      times_seen: number;
      item: string;
      issues: unknown;
    }>("SELECT * FROM quarantine WHERE resolved_at IS NULL ORDER BY last_seen_at DESC, key LIMIT $1", [limit]);
    return result.rows.map((row) => ({
      key: row.key,
      surveyId: row.survey_id === null ? null : Number(row.survey_id),
      source: row.source,
      firstSeenAt: iso(row.first_seen_at),
      lastSeenAt: iso(row.last_seen_at),
      timesSeen: row.times_seen,
      item: JSON.parse(row.item) as unknown,
      issues: row.issues,
    }));
  }

  pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    return this.#transaction(`pruning ${target}`, (client) => prunePostgresTarget(client, target, before, limit));
  }

  async countByLanguage(): Promise<LanguageCount[]> {
    const result = await this.#pool.query<{ language_id: number; live: number; closed: number }>(
      "SELECT language_id, count(*) FILTER (WHERE status = 'live')::int AS live, count(*) FILTER (WHERE status = 'closed')::int AS closed FROM surveys GROUP BY language_id ORDER BY language_id",
    );
    return result.rows.map((row) => ({ languageId: row.language_id, live: row.live, closed: row.closed }));
  }

  async feedHorizon(): Promise<number> {
    const result = await this.#pool.query<{ horizon: string }>(POSTGRES_FEED_HORIZON);
    return Number(result.rows[0]?.horizon ?? 0);
  }

  async saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Promise<void> {
    if (collections.length === 0) return;
    await this.#transaction("saving collections", async (client) => {
      await client.query(
        `INSERT INTO collections (name, fetched_at, body) SELECT u.name, $1, u.body::json FROM unnest($2::text[], $3::text[]) AS u(name, body)
         ON CONFLICT (name) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body`,
        [fetchedAt, collections.map((c) => c.name), collections.map((c) => c.body)],
      );
    });
  }

  async listCollections(): Promise<CollectionRecord[]> {
    const result = await this.#pool.query<{ name: string; fetched_at: Date; body: unknown }>("SELECT name, fetched_at, body FROM collections ORDER BY name");
    return result.rows.map((row) => ({ name: row.name, fetchedAt: iso(row.fetched_at), body: row.body }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.leadership.release();
    await this.#pool.end();
  }
}

const summaryColumns = "id, status, closed_at, first_seen_at, changed_at, needs_refetch, raw";

interface SummaryRow {
  id: string;
  status: SurveyStatus;
  closed_at: Date | null;
  first_seen_at: Date;
  changed_at: Date;
  needs_refetch: boolean;
  raw: unknown;
}

function toSummary(row: SummaryRow): SurveySummary {
  return {
    id: Number(row.id),
    status: row.status,
    closedAt: row.closed_at === null ? null : iso(row.closed_at),
    firstSeenAt: iso(row.first_seen_at),
    changedAt: iso(row.changed_at),
    needsRefetch: row.needs_refetch,
    survey: row.raw,
  };
}

interface RunRow {
  id: string;
  replica_id: string;
  run_trigger: RunRecord["trigger"];
  status: RunRecord["status"];
  started_at: Date;
  finished_at: Date;
  duration_ms: number;
  counts: RunRecord["counts"];
  error: string | null;
  first_sequence: string | null;
  last_sequence: string | null;
}

function toRunRecord(row: RunRow): RunRecord {
  return {
    id: Number(row.id),
    replicaId: row.replica_id,
    trigger: row.run_trigger,
    status: row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms,
    counts: row.counts,
    error: row.error,
    firstSequence: row.first_sequence === null ? null : Number(row.first_sequence),
    lastSequence: row.last_sequence === null ? null : Number(row.last_sequence),
  };
}
