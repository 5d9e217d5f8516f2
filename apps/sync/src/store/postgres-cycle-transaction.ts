import type pg from "pg";
import { StoreError } from "../common/errors.ts";
import type { PostgresLeadership } from "./postgres-leadership.ts";
import type { CommitOutcome, CycleBatch, CycleTransaction, QuarantineInput, RunInput } from "./store.ts";

/** Rows per bulk statement: large enough to amortise round trips, small enough to keep each message modest. */
const CHUNK = 5000;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) result.push(items.slice(start, start + CHUNK));
  return result;
}

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

  private constructor(client: pg.PoolClient, leadership: PostgresLeadership, at: Date, runId: number, firstSequence: number) {
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
      const counter = await client.query<{ value: string }>("SELECT value FROM counters WHERE name = 'changes' FOR UPDATE");
      // The run row is written first so changes can name it; it is completed at commit and vanishes with a rollback.
      const run = await client.query<{ id: string }>(
        "INSERT INTO runs (replica_id, run_trigger, status, started_at, finished_at, duration_ms, counts) VALUES ('', 'schedule', 'succeeded', $1, $1, 0, '{}') RETURNING id",
        [at],
      );
      return new PostgresCycleTransaction(client, leadership, at, Number(run.rows[0]?.id), Number(counter.rows[0]?.value ?? 0) + 1);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw error;
    }
  }

  async write(batch: CycleBatch): Promise<void> {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
    const client = this.#client;
    const at = this.#at;
    for (const part of chunks(batch.surveys)) {
      await client.query(
        `INSERT INTO surveys (id, status, closed_at, first_seen_at, changed_at, language_id, cpi, loi, ir, desktop_allowed, mobile_allowed,
           tablet_allowed, last_updated, qual_updated, quota_updated, qualifications_marker, quotas_marker, quota_count, needs_refetch, raw_hash, record_hash, raw)
         SELECT u.id, 'live', NULL, $1, $1, u.language_id, u.cpi, u.loi, u.ir, u.desktop, u.mobile, u.tablet, u.last_updated, u.qual_updated,
           u.quota_updated, u.qualifications_marker, u.quotas_marker, u.quota_count, u.needs_refetch, u.raw_hash, u.record_hash, u.raw::json
         FROM unnest($2::bigint[], $3::int[], $4::numeric[], $5::numeric[], $6::numeric[], $7::boolean[], $8::boolean[], $9::boolean[],
           $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::boolean[], $17::text[], $18::text[], $19::text[])
           AS u(id, language_id, cpi, loi, ir, desktop, mobile, tablet, last_updated, qual_updated, quota_updated, qualifications_marker,
             quotas_marker, quota_count, needs_refetch, raw_hash, record_hash, raw)
         ON CONFLICT (id) DO UPDATE SET status = 'live', closed_at = NULL, changed_at = excluded.changed_at, language_id = excluded.language_id,
           cpi = excluded.cpi, loi = excluded.loi, ir = excluded.ir, desktop_allowed = excluded.desktop_allowed,
           mobile_allowed = excluded.mobile_allowed, tablet_allowed = excluded.tablet_allowed, last_updated = excluded.last_updated,
           qual_updated = excluded.qual_updated, quota_updated = excluded.quota_updated,
           qualifications_marker = excluded.qualifications_marker, quotas_marker = excluded.quotas_marker, quota_count = excluded.quota_count,
           needs_refetch = excluded.needs_refetch, raw_hash = excluded.raw_hash, record_hash = excluded.record_hash, raw = excluded.raw`,
        [
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
        ],
      );
    }

    for (const part of chunks(batch.closedSurveyIds)) {
      await client.query("UPDATE surveys SET status = 'closed', closed_at = $1, changed_at = $1 WHERE id = ANY($2::bigint[]) AND status = 'live'", [at, part]);
      await client.query("UPDATE quarantine SET resolved_at = $1 WHERE survey_id = ANY($2::bigint[]) AND resolved_at IS NULL", [at, part]);
    }

    await this.#replaceChildren("qualifications", batch.qualifications);
    await this.#replaceChildren("quotas", batch.quotas);

    if (batch.changes.length > 0) {
      const first = this.#nextSequence;
      this.#nextSequence += batch.changes.length;
      const indexed = batch.changes.map((change, index) => ({ ...change, sequence: first + index }));
      for (const part of chunks(indexed)) {
        await client.query(
          `INSERT INTO changes (sequence, run_id, type, survey_id, occurred_at)
           SELECT u.sequence, $1, u.type, u.survey_id, $2 FROM unnest($3::bigint[], $4::text[], $5::bigint[]) AS u(sequence, type, survey_id)`,
          [this.#runId, at, part.map((c) => c.sequence), part.map((c) => c.type), part.map((c) => c.surveyId)],
        );
      }
    }
    await this.#upsertQuarantine(batch.quarantine);
    for (const part of chunks(batch.resolvedQuarantineKeys)) {
      await client.query("UPDATE quarantine SET resolved_at = $1 WHERE key = ANY($2::text[]) AND resolved_at IS NULL", [at, part]);
    }
  }

  async commit(run: RunInput): Promise<CommitOutcome> {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
    const hasChanges = this.#nextSequence > this.#firstSequence;
    const firstSequence = hasChanges ? this.#firstSequence : null;
    const lastSequence = hasChanges ? this.#nextSequence - 1 : null;
    try {
      await assertLeader(this.#client, this.#leadership);
      await this.#client.query(
        `UPDATE runs SET replica_id = $1, run_trigger = $2, status = $3, started_at = $4, finished_at = $5, duration_ms = $6, counts = $7, error = $8,
           first_sequence = $9, last_sequence = $10 WHERE id = $11`,
        [
          run.replicaId, run.trigger, run.status, run.startedAt, run.finishedAt, Math.round(run.finishedAt.getTime() - run.startedAt.getTime()),
          JSON.stringify(run.counts), run.error, firstSequence, lastSequence, this.#runId,
        ],
      );
      if (lastSequence !== null) await this.#client.query("UPDATE counters SET value = $1 WHERE name = 'changes'", [lastSequence]);
      if (run.status === "succeeded") {
        // The list was read whole: what it no longer carries is no longer wrong upstream.
        await this.#client.query("UPDATE quarantine SET resolved_at = $1 WHERE source = 'surveys' AND resolved_at IS NULL AND last_run_id IS DISTINCT FROM $2", [this.#at, this.#runId]);
      }
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

  async #replaceChildren(table: "qualifications" | "quotas", replacements: CycleBatch["qualifications"]): Promise<void> {
    if (replacements.length === 0) return;
    const client = this.#client;
    for (const batch of chunks(replacements.map((replacement) => replacement.surveyId))) {
      await client.query(`DELETE FROM ${table} WHERE survey_id = ANY($1::bigint[])`, [batch]);
    }
    const rows = replacements.flatMap((replacement) => replacement.records.map((record, position) => ({ surveyId: replacement.surveyId, position, record })));
    for (const batch of chunks(rows)) {
      if (table === "qualifications") {
        await client.query(
          `INSERT INTO qualifications (survey_id, position, qualification_id, qualification_type_id, raw)
           SELECT u.survey_id, u.position, u.qualification_id, u.type_id, u.raw::json
           FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::text[]) AS u(survey_id, position, qualification_id, type_id, raw)`,
          [batch.map((r) => r.surveyId), batch.map((r) => r.position), batch.map((r) => r.record.key), batch.map((r) => r.record.typeId), batch.map((r) => r.record.raw)],
        );
      } else {
        await client.query(
          `INSERT INTO quotas (survey_id, position, quota_id, raw)
           SELECT u.survey_id, u.position, u.quota_id, u.raw::json FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[]) AS u(survey_id, position, quota_id, raw)`,
          [batch.map((r) => r.surveyId), batch.map((r) => r.position), batch.map((r) => r.record.key), batch.map((r) => r.record.raw)],
        );
      }
    }
  }

  async #upsertQuarantine(items: readonly QuarantineInput[]): Promise<void> {
    const client = this.#client;
    // ON CONFLICT may touch a row once per statement: keep the last item of each key.
    const unique = [...new Map(items.map((item) => [item.key, item])).values()];
    for (const batch of chunks(unique)) {
      await client.query(
        `INSERT INTO quarantine (key, survey_id, source, first_seen_at, last_seen_at, times_seen, last_run_id, item, issues)
         SELECT u.key, u.survey_id, u.source, $1, $1, 1, $2, u.item, u.issues::json
         FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[]) AS u(key, survey_id, source, item, issues)
         ON CONFLICT (key) DO UPDATE SET last_seen_at = excluded.last_seen_at, times_seen = quarantine.times_seen + 1,
           last_run_id = excluded.last_run_id, item = excluded.item, issues = excluded.issues, source = excluded.source, resolved_at = NULL`,
        [this.#at, this.#runId, batch.map((i) => i.key), batch.map((i) => i.surveyId), batch.map((i) => i.source), batch.map((i) => i.item), batch.map((i) => i.issues)],
      );
    }
  }
}

/** Fencing: a replica that lost its lock (say, its lock connection died mid-cycle) must not write. */
async function assertLeader(client: pg.PoolClient, leadership: PostgresLeadership): Promise<void> {
  const pid = leadership.leaderPid;
  if (pid === undefined) throw new StoreError("this replica does not hold leadership");
  const { classId, objectId } = leadership.key;
  const held = await client.query(
    "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND pid = $3 AND granted",
    [classId, objectId, pid],
  );
  if (held.rowCount === 0) throw new StoreError("leadership was lost before the commit");
}
