import type pg from "pg";
import { syncLedger } from "./migrations.ts";
import { openMigratedPool, type PostgresSchemaOptions } from "../database/postgres-migrate.ts";
import { inPostgresTransaction } from "../database/postgres-transaction.ts";
import { withStoreErrors } from "../database/store-errors.ts";
import { PostgresCycleTransaction } from "./postgres-cycle-transaction.ts";
import { PostgresLeadership } from "./postgres-leadership.ts";
import { prunePostgresTarget, type PruneTarget } from "./inventory-retention.ts";
import type { PruneBatchOutcome } from "../database/retention.ts";
import { postgresQuery } from "../database/postgres-query.ts";
import type { Row } from "../database/row-values.ts";
import { inventorySql, runParams, surveyPageSql, surveySummaryColumns } from "./inventory-sql.ts";
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

class PostgresStore implements SyncStore {
  readonly kind = "postgres" as const;
  readonly leadership: PostgresLeadership;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(pool: pg.Pool, leadership: PostgresLeadership) {
    this.#pool = pool;
    this.leadership = leadership;
  }

  /** The rows of one shared statement (`?` placeholders) on the pool. */
  async #rows(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return (await postgresQuery(this.#pool, sql, params)).rows;
  }

  async loadSurveyStates(): Promise<StoredSurveyState[]> {
    return (await this.#rows(inventorySql.surveyStates)).map(toSurveyState);
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

  async recordRun(run: RunInput): Promise<number> {
    const result = await inPostgresTransaction(this.#pool, "run record", (client) =>
      postgresQuery(client, inventorySql.insertRun, [...runParams(run), null, null]),
    );
    return Number(result.rows[0]?.id);
  }

  async listSurveys(query: SurveyQuery): Promise<SurveyPage> {
    const { sql, params } = surveyPageSql(query);
    const rows = await this.#rows(sql, params);
    const hasMore = rows.length > query.limit;
    const surveys = rows.slice(0, query.limit).map(toSurveySummary);
    return { surveys, hasMore, lastId: hasMore ? (surveys.at(-1)?.id ?? null) : null };
  }

  async getSurvey(id: number): Promise<SurveyDetail | undefined> {
    const [survey, qualifications, quotas] = await Promise.all([
      this.#rows(inventorySql.survey, [id]),
      this.#rows(inventorySql.qualificationsOf, [id]),
      this.#rows(inventorySql.quotasOf, [id]),
    ]);
    const row = survey[0];
    if (!row) return undefined;
    return { ...toSurveySummary(row), qualifications: toChildRecords(qualifications), quotas: toChildRecords(quotas) };
  }

  async getSurveys(ids: readonly number[]): Promise<SurveyDetail[]> {
    if (ids.length === 0) return [];
    const list = [...ids];
    // One round trip per table for any count: an id array, which only PostgreSQL binds.
    const [surveys, qualifications, quotas] = await Promise.all([
      this.#rows(`SELECT ${surveySummaryColumns} FROM surveys WHERE id = ANY(?::bigint[])`, [list]),
      this.#rows(
        "SELECT survey_id, raw FROM qualifications WHERE survey_id = ANY(?::bigint[]) ORDER BY survey_id, position",
        [list],
      ),
      this.#rows("SELECT survey_id, raw FROM quotas WHERE survey_id = ANY(?::bigint[]) ORDER BY survey_id, position", [
        list,
      ]),
    ]);
    const qualificationsBySurvey = groupBySurvey(qualifications);
    const quotasBySurvey = groupBySurvey(quotas);
    const byId = new Map(surveys.map((row) => [Number(row.id), row]));
    return list.flatMap((id) => {
      const row = byId.get(id);
      return row
        ? [
            {
              ...toSurveySummary(row),
              qualifications: toChildRecords(qualificationsBySurvey.get(id) ?? []),
              quotas: toChildRecords(quotasBySurvey.get(id) ?? []),
            },
          ]
        : [];
    });
  }

  async surveyRecords(ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    // `raw` arrives as the text stored (a `json` column keeps it verbatim), not parsed by the driver.
    const rows = await this.#rows("SELECT id, raw FROM surveys WHERE id = ANY(?::bigint[])", [[...ids]]);
    return new Map(rows.map((row) => [Number(row.id), row.raw as string]));
  }

  async refetchPendingIds(): Promise<number[]> {
    return (await this.#rows(inventorySql.refetchPendingIds)).map((row) => Number(row.id));
  }

  async listChanges(after: number, limit: number): Promise<ChangeRecord[]> {
    return (await this.#rows(inventorySql.changesAfter, [after, limit])).map(toChangeRecord);
  }

  async latestSequence(): Promise<number> {
    return Number((await this.#rows(inventorySql.latestSequence))[0]?.value ?? 0);
  }

  async listRuns(limit: number): Promise<RunRecord[]> {
    return (await this.#rows(inventorySql.recentRuns, [limit])).map(toRunRecord);
  }

  async lastSuccessfulRun(): Promise<RunRecord | undefined> {
    const row = (await this.#rows(inventorySql.lastSuccessfulRun))[0];
    return row ? toRunRecord(row) : undefined;
  }

  async stats(): Promise<StoreStats> {
    return toStoreStats((await this.#rows(inventorySql.stats))[0] ?? {});
  }

  async listQuarantine(limit: number): Promise<QuarantineRecord[]> {
    return (await this.#rows(inventorySql.unresolvedQuarantine, [limit])).map(toQuarantineRecord);
  }

  pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    return inPostgresTransaction(this.#pool, `pruning ${target}`, (client) =>
      prunePostgresTarget(client, target, before, limit),
    );
  }

  async countByLanguage(): Promise<LanguageCount[]> {
    return (await this.#rows(inventorySql.countByLanguage)).map(toLanguageCount);
  }

  async feedHorizon(): Promise<number> {
    return Number((await this.#rows(inventorySql.feedHorizon))[0]?.horizon ?? 0);
  }

  async saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Promise<void> {
    if (collections.length === 0) return;
    // A handful of collections a day: one statement each, in one transaction.
    await inPostgresTransaction(this.#pool, "saving collections", async (client) => {
      for (const collection of collections)
        await postgresQuery(client, inventorySql.upsertCollection, [
          collection.name,
          fetchedAt.toISOString(),
          collection.body,
        ]);
    });
  }

  async listCollections(): Promise<CollectionRecord[]> {
    return (await this.#rows(inventorySql.collections)).map(toCollectionRecord);
  }

  async getCollection(name: string): Promise<CollectionRecord | undefined> {
    const [row] = await this.#rows(inventorySql.collection, [name]);
    return row === undefined ? undefined : toCollectionRecord(row);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.leadership.release();
    await this.#pool.end();
  }
}

/** Child rows (`survey_id`, `raw`) by survey, in row order. */
function groupBySurvey(rows: readonly Row[]): Map<number, Row[]> {
  const bySurvey = new Map<number, Row[]>();
  for (const row of rows) {
    const id = Number(row.survey_id);
    const records = bySurvey.get(id);
    if (records) records.push(row);
    else bySurvey.set(id, [row]);
  }
  return bySurvey;
}
