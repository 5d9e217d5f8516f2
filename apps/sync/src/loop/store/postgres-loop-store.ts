import type pg from "pg";
import { outcomeLedger } from "./loop-migrations.ts";
import { openMigratedPool, type PostgresSchemaOptions } from "../../database/postgres-migrate.ts";
import { inPostgresTransaction } from "../../database/postgres-transaction.ts";
import {
  type EntryInput,
  type EntryRecord,
  type OutcomeInput,
  type OutcomeKind,
  type OutcomeRecord,
  type OutcomeStore,
  type RecordEntryResult,
  type RecordOutcomeResult,
  type SurveyConversionCounts,
} from "./loop-store.ts";
import { conversionSql, outcomeCountsSql, toConversionCounts, toOutcomeCounts } from "./loop-sql.ts";
import { prunePostgresFeedPrefix } from "../../store/postgres-retention.ts";
import type { PruneBatchOutcome } from "../../store/retention.ts";
import type { OutcomePruneTarget } from "./loop-store.ts";

/**
 * Opens the PostgreSQL outcome store in the sync store's schema, applying its migrations under
 * an advisory transaction lock so replicas starting together migrate once. Every replica writes
 * it: the receiver runs on each. `poolSize` is 3 unless given.
 */
export async function openPostgresOutcomeStore(options: PostgresSchemaOptions): Promise<OutcomeStore> {
  const { pool } = await openMigratedPool(options, 3, outcomeLedger, "the PostgreSQL outcome store");
  return new PostgresOutcomeStore(pool);
}

/** The outcome feed's horizon in one statement (one snapshot): below its oldest kept row, else the counter. */
const POSTGRES_OUTCOME_HORIZON = "SELECT COALESCE((SELECT min(sequence) FROM loop_outcomes) - 1, (SELECT value FROM loop_counters WHERE name = 'outcomes'))::text AS horizon";
/** The oldest entries issued before the horizon that got no outcome after it (`loop_entries_issued`). */
const POSTGRES_PRUNE_ENTRIES =
  "DELETE FROM loop_entries WHERE token IN (SELECT token FROM loop_entries WHERE issued_at < $1 AND (outcome_at IS NULL OR outcome_at < $1) ORDER BY issued_at LIMIT $2)";

interface EntryRow {
  token: string;
  survey_id: string;
  uid: string;
  cpi: string;
  issued_at: Date;
  outcome: OutcomeKind | null;
}

interface OutcomeRow {
  sequence: string;
  token: string;
  outcome: OutcomeKind;
  survey_id: string | null;
  previous_outcome: OutcomeKind | null;
  received_at: Date;
}

class PostgresOutcomeStore implements OutcomeStore {
  readonly kind = "postgres" as const;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  #transaction<T>(what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inPostgresTransaction(this.#pool, what, work);
  }

  recordEntry(entry: EntryInput): Promise<RecordEntryResult> {
    return this.#transaction("recording an entry", async (client) => {
      const inserted = await client.query<EntryRow>(
        "INSERT INTO loop_entries (token, survey_id, uid, cpi, issued_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (token) DO NOTHING RETURNING *",
        [entry.token, entry.surveyId, entry.uid, entry.cpi, entry.at],
      );
      const row = inserted.rows[0];
      if (row) return { kind: "recorded", entry: toEntry(row) };
      const existing = toEntry((await client.query<EntryRow>("SELECT * FROM loop_entries WHERE token = $1", [entry.token])).rows[0] as EntryRow);
      return { kind: existing.surveyId === entry.surveyId && existing.uid === entry.uid ? "existing" : "conflict", entry: existing };
    });
  }

  recordOutcome(outcome: OutcomeInput): Promise<RecordOutcomeResult> {
    return this.#transaction("recording an outcome", async (client) => {
      // The counter row's lock serialises recorders until commit: sequences stay in commit order,
      // and a concurrent duplicate sees the first one's row once it gets the lock.
      const counter = await client.query<{ value: string }>("SELECT value FROM loop_counters WHERE name = 'outcomes' FOR UPDATE");
      const repeat = await client.query<OutcomeRow>("SELECT * FROM loop_outcomes WHERE token = $1 AND outcome = $2", [outcome.token, outcome.outcome]);
      if (repeat.rows[0]) return { recorded: false, record: toOutcome(repeat.rows[0]) };
      const entry = await client.query<{ survey_id: string }>("SELECT survey_id FROM loop_entries WHERE token = $1", [outcome.token]);
      const previous = await client.query<{ outcome: OutcomeKind }>("SELECT outcome FROM loop_outcomes WHERE token = $1 ORDER BY sequence DESC LIMIT 1", [outcome.token]);
      const sequence = Number(counter.rows[0]?.value ?? 0) + 1;
      await client.query("UPDATE loop_counters SET value = $1 WHERE name = 'outcomes'", [sequence]);
      const inserted = await client.query<OutcomeRow>(
        "INSERT INTO loop_outcomes (sequence, token, outcome, survey_id, previous_outcome, received_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *",
        [sequence, outcome.token, outcome.outcome, entry.rows[0]?.survey_id ?? null, previous.rows[0]?.outcome ?? null, outcome.at],
      );
      if (entry.rows[0]) await client.query("UPDATE loop_entries SET outcome = $1, outcome_at = $2 WHERE token = $3", [outcome.outcome, outcome.at, outcome.token]);
      return { recorded: true, record: toOutcome(inserted.rows[0] as OutcomeRow) };
    });
  }

  async listOutcomes(after: number, limit: number): Promise<OutcomeRecord[]> {
    const result = await this.#pool.query<OutcomeRow>("SELECT * FROM loop_outcomes WHERE sequence > $1 ORDER BY sequence LIMIT $2", [after, limit]);
    return result.rows.map(toOutcome);
  }

  async latestSequence(): Promise<number> {
    const result = await this.#pool.query<{ value: string }>("SELECT value FROM loop_counters WHERE name = 'outcomes'");
    return Number(result.rows[0]?.value ?? 0);
  }

  pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // One short transaction; readers are never blocked (MVCC), and recorders write young rows only.
    return this.#transaction(`pruning ${target}`, async (client) => {
      switch (target) {
        case "outcomes":
          return prunePostgresFeedPrefix(client, { table: "loop_outcomes", timeColumn: "received_at" }, before, limit);
        case "entries": {
          const deleted = (await client.query(POSTGRES_PRUNE_ENTRIES, [before, limit])).rowCount ?? 0;
          return { deleted, more: deleted === limit, deferred: false };
        }
      }
    });
  }

  async feedHorizon(): Promise<number> {
    const result = await this.#pool.query<{ horizon: string }>(POSTGRES_OUTCOME_HORIZON);
    return Number(result.rows[0]?.horizon ?? 0);
  }

  async conversion(): Promise<SurveyConversionCounts[]> {
    const result = await this.#pool.query<Record<string, string>>(conversionSql);
    return result.rows.map(toConversionCounts);
  }

  async outcomeCounts(): Promise<Readonly<Record<OutcomeKind, number>>> {
    const result = await this.#pool.query<{ outcome: string; count: string }>(outcomeCountsSql);
    return toOutcomeCounts(result.rows);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

function toEntry(row: EntryRow): EntryRecord {
  return {
    token: row.token,
    surveyId: Number(row.survey_id),
    uid: row.uid,
    cpi: Number(row.cpi),
    issuedAt: row.issued_at.toISOString(),
    outcome: row.outcome ?? null,
  };
}

function toOutcome(row: OutcomeRow): OutcomeRecord {
  return {
    sequence: Number(row.sequence),
    token: row.token,
    outcome: row.outcome,
    surveyId: row.survey_id === null ? null : Number(row.survey_id),
    previousOutcome: row.previous_outcome ?? null,
    receivedAt: row.received_at.toISOString(),
  };
}
