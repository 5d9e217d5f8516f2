import type pg from "pg";
import { StoreError } from "../common/errors.ts";
import { runOnPostgres } from "../database/postgres-driver.ts";
import { execute, first, one, type Program } from "../database/program.ts";
import type { SqlValue } from "../database/sql-dialect.ts";
import { command, statement } from "../database/statement.ts";
import { quarantineColumns, quarantineUpsertConflict, surveyUpsertConflict, surveyWriteColumns } from "./cycle-sql.ts";
import {
  COMPLETE_CYCLE_RUN,
  LATEST_SEQUENCE,
  OPEN_CYCLE_RUN,
  RESOLVE_LIST_QUARANTINE,
  SET_LATEST_SEQUENCE,
  runParams,
} from "./inventory-records.ts";
import type { PostgresLeadership } from "./postgres-leadership.ts";
import type { CommitOutcome, CycleBatch, CycleTransaction, QuarantineInput, RunInput } from "./store.ts";

/** Rows per bulk statement: large enough to amortise round trips, small enough to keep each message modest. */
const CHUNK = 5000;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) result.push(items.slice(start, start + CHUNK));
  return result;
}

/** A column of a chunk, bound as one array. */
type Column<T extends SqlValue> = readonly T[];

/** The counter row, locked to the commit: the next cycle's sequence numbers start after this one's. */
const LOCK_LATEST_SEQUENCE = statement<[], number>(
  "SELECT value FROM counters WHERE name = 'changes' FOR UPDATE",
  LATEST_SEQUENCE.decode,
);

const UPSERT_SURVEYS = command<
  [
    at: Date,
    ...columns: [
      Column<number>,
      Column<number>,
      Column<number>,
      Column<number>,
      Column<number>,
      Column<boolean>,
      Column<boolean>,
      Column<boolean>,
      Column<string>,
      Column<string>,
      Column<string>,
      Column<string | null>,
      Column<string | null>,
      Column<number>,
      Column<boolean>,
      Column<string>,
      Column<string>,
      Column<string>,
    ],
  ]
>(`INSERT INTO surveys (id, status, closed_at, first_seen_at, changed_at, ${surveyWriteColumns})
         SELECT u.id, 'live', NULL, $1, $1, u.language_id, u.cpi, u.loi, u.ir, u.desktop, u.mobile, u.tablet, u.last_updated, u.qual_updated,
           u.quota_updated, u.qualifications_marker, u.quotas_marker, u.quota_count, u.needs_refetch, u.raw_hash, u.record_hash, u.raw::json
         FROM unnest($2::bigint[], $3::int[], $4::numeric[], $5::numeric[], $6::numeric[], $7::boolean[], $8::boolean[], $9::boolean[],
           $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::boolean[], $17::text[], $18::text[], $19::text[])
           AS u(id, language_id, cpi, loi, ir, desktop, mobile, tablet, last_updated, qual_updated, quota_updated, qualifications_marker,
             quotas_marker, quota_count, needs_refetch, raw_hash, record_hash, raw)
         ${surveyUpsertConflict}`);
const CLOSE_SURVEYS = command<[at: Date, ids: Column<number>]>(
  "UPDATE surveys SET status = 'closed', closed_at = $1, changed_at = $1 WHERE id = ANY($2::bigint[]) AND status = 'live'",
);
const RESOLVE_QUARANTINE_OF_SURVEYS = command<[at: Date, ids: Column<number>]>(
  "UPDATE quarantine SET resolved_at = $1 WHERE survey_id = ANY($2::bigint[]) AND resolved_at IS NULL",
);
const INSERT_CHANGES = command<
  [runId: number, at: Date, sequences: Column<number>, types: Column<string>, surveyIds: Column<number>]
>(`INSERT INTO changes (sequence, run_id, type, survey_id, occurred_at)
           SELECT u.sequence, $1, u.type, u.survey_id, $2 FROM unnest($3::bigint[], $4::text[], $5::bigint[]) AS u(sequence, type, survey_id)`);
const RESOLVE_QUARANTINE_KEYS = command<[at: Date, keys: Column<string>]>(
  "UPDATE quarantine SET resolved_at = $1 WHERE key = ANY($2::text[]) AND resolved_at IS NULL",
);
const DELETE_CHILDREN = {
  qualifications: command<[surveyIds: Column<number>]>(
    "DELETE FROM qualifications WHERE survey_id = ANY($1::bigint[])",
  ),
  quotas: command<[surveyIds: Column<number>]>("DELETE FROM quotas WHERE survey_id = ANY($1::bigint[])"),
} as const;
const INSERT_QUALIFICATIONS = command<
  [
    surveyIds: Column<number>,
    positions: Column<number>,
    ids: Column<number | null>,
    typeIds: Column<number | null>,
    raws: Column<string>,
  ]
>(`INSERT INTO qualifications (survey_id, position, qualification_id, qualification_type_id, raw)
           SELECT u.survey_id, u.position, u.qualification_id, u.type_id, u.raw::json
           FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::text[]) AS u(survey_id, position, qualification_id, type_id, raw)`);
const INSERT_QUOTAS = command<
  [surveyIds: Column<number>, positions: Column<number>, ids: Column<number | null>, raws: Column<string>]
>(`INSERT INTO quotas (survey_id, position, quota_id, raw)
           SELECT u.survey_id, u.position, u.quota_id, u.raw::json FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[]) AS u(survey_id, position, quota_id, raw)`);
const UPSERT_QUARANTINE = command<
  [
    at: Date,
    runId: number,
    keys: Column<string>,
    surveyIds: Column<number | null>,
    sources: Column<string>,
    items: Column<string>,
    issues: Column<string>,
  ]
>(`INSERT INTO quarantine (${quarantineColumns})
         SELECT u.key, u.survey_id, u.source, $1, $1, 1, $2, u.item, u.issues::json
         FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[]) AS u(key, survey_id, source, item, issues)
         ${quarantineUpsertConflict}`);
/** Whether the backend `pid` holds the leadership lock (the fencing check). */
const HOLDS_LEADERSHIP = statement<[classId: number, objectId: number, pid: number], true>(
  "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND pid = $3 AND granted",
  () => true,
);

/**
 * A cycle's transaction on a dedicated pooled connection: batches are written in bulk
 * (`unnest` arrays) as they come; MVCC keeps them invisible to readers until the commit. The
 * counter row is locked at open, so sequence numbers are allocated without gaps; leadership is
 * checked at open and again just before the commit (fencing a leader that lost its lock).
 */
export class PostgresCycleTransaction implements CycleTransaction {
  readonly #client: pg.PoolClient;
  readonly #leadership: PostgresLeadership;
  readonly #at: Date;
  readonly #runId: number;
  readonly #firstSequence: number;
  #nextSequence: number;
  #open = true;

  private constructor(
    client: pg.PoolClient,
    leadership: PostgresLeadership,
    at: Date,
    runId: number,
    firstSequence: number,
  ) {
    this.#client = client;
    this.#leadership = leadership;
    this.#at = at;
    this.#runId = runId;
    this.#firstSequence = firstSequence;
    this.#nextSequence = firstSequence;
  }

  /** Opens the transaction on a connection of `pool`. */
  static async begin(pool: pg.Pool, leadership: PostgresLeadership, at: Date): Promise<PostgresCycleTransaction> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await assertLeader(client, leadership);
      const latest = await runOnPostgres(client, one(LOCK_LATEST_SEQUENCE));
      const runId = await runOnPostgres(client, one(OPEN_CYCLE_RUN, at.toISOString(), at.toISOString()));
      return new PostgresCycleTransaction(client, leadership, at, runId, latest + 1);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw error;
    }
  }

  /** Runs one program of this transaction on its connection. */
  #run<T>(program: Program<T>): Promise<T> {
    return runOnPostgres(this.#client, program);
  }

  async write(batch: CycleBatch): Promise<void> {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
    const at = this.#at;
    for (const part of chunks(batch.surveys)) {
      await this.#run(
        execute(
          UPSERT_SURVEYS,
          at,
          part.map((s) => s.id),
          part.map((s) => s.columns.languageId),
          part.map((s) => s.columns.cpi),
          part.map((s) => s.columns.loi),
          part.map((s) => s.columns.ir),
          part.map((s) => s.columns.desktopAllowed),
          part.map((s) => s.columns.mobileAllowed),
          part.map((s) => s.columns.tabletAllowed),
          part.map((s) => s.columns.lastUpdated),
          part.map((s) => s.columns.qualUpdated),
          part.map((s) => s.columns.quotaUpdated),
          part.map((s) => s.qualificationsMarker),
          part.map((s) => s.quotasMarker),
          part.map((s) => s.quotaCount),
          part.map((s) => s.needsRefetch),
          part.map((s) => s.rawHash),
          part.map((s) => s.recordHash),
          part.map((s) => s.raw),
        ),
      );
    }

    for (const part of chunks(batch.closedSurveyIds)) {
      await this.#run(execute(CLOSE_SURVEYS, at, part));
      await this.#run(execute(RESOLVE_QUARANTINE_OF_SURVEYS, at, part));
    }

    await this.#replaceChildren("qualifications", batch.qualifications);
    await this.#replaceChildren("quotas", batch.quotas);

    if (batch.changes.length > 0) {
      const first = this.#nextSequence;
      this.#nextSequence += batch.changes.length;
      const indexed = batch.changes.map((change, index) => ({ ...change, sequence: first + index }));
      for (const part of chunks(indexed)) {
        await this.#run(
          execute(
            INSERT_CHANGES,
            this.#runId,
            at,
            part.map((c) => c.sequence),
            part.map((c) => c.type),
            part.map((c) => c.surveyId),
          ),
        );
      }
    }
    await this.#upsertQuarantine(batch.quarantine);
    for (const part of chunks(batch.resolvedQuarantineKeys))
      await this.#run(execute(RESOLVE_QUARANTINE_KEYS, at, part));
  }

  async commit(run: RunInput): Promise<CommitOutcome> {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
    const hasChanges = this.#nextSequence > this.#firstSequence;
    const firstSequence = hasChanges ? this.#firstSequence : null;
    const lastSequence = hasChanges ? this.#nextSequence - 1 : null;
    try {
      await assertLeader(this.#client, this.#leadership);
      await this.#run(execute(COMPLETE_CYCLE_RUN, ...runParams(run), firstSequence, lastSequence, this.#runId));
      if (lastSequence !== null) await this.#run(execute(SET_LATEST_SEQUENCE, lastSequence));
      if (run.status === "succeeded")
        await this.#run(execute(RESOLVE_LIST_QUARANTINE, this.#at.toISOString(), this.#runId));
      await this.#client.query("COMMIT");
      this.#end();
      return { runId: this.#runId, firstSequence, lastSequence };
    } catch (error) {
      await this.rollback();
      throw error;
    }
  }

  async rollback(): Promise<void> {
    if (!this.#open) return;
    await this.#client.query("ROLLBACK").catch(() => undefined);
    this.#end();
  }

  #end(): void {
    this.#open = false;
    this.#client.release();
  }

  async #replaceChildren(
    table: "qualifications" | "quotas",
    replacements: CycleBatch["qualifications"],
  ): Promise<void> {
    if (replacements.length === 0) return;
    for (const batch of chunks(replacements.map((replacement) => replacement.surveyId)))
      await this.#run(execute(DELETE_CHILDREN[table], batch));
    const rows = replacements.flatMap((replacement) =>
      replacement.records.map((record, position) => ({ surveyId: replacement.surveyId, position, record })),
    );
    for (const batch of chunks(rows)) {
      const surveyIds = batch.map((r) => r.surveyId);
      const positions = batch.map((r) => r.position);
      const keys = batch.map((r) => r.record.key);
      const raws = batch.map((r) => r.record.raw);
      await this.#run(
        table === "qualifications"
          ? execute(
              INSERT_QUALIFICATIONS,
              surveyIds,
              positions,
              keys,
              batch.map((r) => r.record.typeId),
              raws,
            )
          : execute(INSERT_QUOTAS, surveyIds, positions, keys, raws),
      );
    }
  }

  async #upsertQuarantine(items: readonly QuarantineInput[]): Promise<void> {
    // ON CONFLICT may touch a row once per statement: keep the last item of each key.
    const unique = [...new Map(items.map((item) => [item.key, item])).values()];
    for (const batch of chunks(unique)) {
      await this.#run(
        execute(
          UPSERT_QUARANTINE,
          this.#at,
          this.#runId,
          batch.map((i) => i.key),
          batch.map((i) => i.surveyId),
          batch.map((i) => i.source),
          batch.map((i) => i.item),
          batch.map((i) => i.issues),
        ),
      );
    }
  }
}

/** Fencing: a replica that lost its lock (say, its lock connection died mid-cycle) must not write. */
async function assertLeader(client: pg.PoolClient, leadership: PostgresLeadership): Promise<void> {
  const pid = leadership.leaderPid;
  if (pid === undefined) throw new StoreError("this replica does not hold leadership");
  const { classId, objectId } = leadership.key;
  const held = await runOnPostgres(client, first(HOLDS_LEADERSHIP, classId, objectId, pid));
  if (held === undefined) throw new StoreError("leadership was lost before the commit");
}
