import { mkdirSync } from "node:fs";
import { dirname, extname } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { StoreError } from "../../common/errors.ts";
import { outcomeLedger } from "./loop-migrations.ts";
import { inSqliteTransaction as inTransaction, migrateSqlite } from "../../database/sqlite-migrate.ts";
import { conversionSql, outcomeCountsSql, toConversionCounts, toOutcomeCounts } from "./loop-sql.ts";
import type { PruneBatchOutcome } from "../../store/retention.ts";
import type { OutcomePruneTarget } from "./loop-store.ts";
import { pruneSqliteFeedPrefix } from "../../store/sqlite-retention.ts";
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

type Row = Record<string, SQLInputValue>;

/** The outcome feed's horizon in one statement (one snapshot): below its oldest kept row, else the counter. */
const SQLITE_OUTCOME_HORIZON = "SELECT COALESCE((SELECT MIN(sequence) FROM loop_outcomes) - 1, (SELECT value FROM loop_counters WHERE name = 'outcomes')) AS horizon";
/** The oldest entries issued before the horizon that got no outcome after it (`loop_entries_issued`). */
const SQLITE_PRUNE_ENTRIES =
  "DELETE FROM loop_entries WHERE token IN (SELECT token FROM loop_entries WHERE issued_at < ? AND (outcome_at IS NULL OR outcome_at < ?) ORDER BY issued_at LIMIT ?)";

/**
 * The file holding the loop's tables beside the sync store's: `sds.db` → `sds.loop.db`.
 * A file of its own because `node:sqlite` is synchronous and a cycle holds the sync file's write
 * lock from its first batch to its commit: an outcome written there would have to wait for the
 * cycle while blocking the event loop the cycle runs on.
 */
export function loopDatabasePath(path: string): string {
  if (path === ":memory:") return path;
  const extension = extname(path);
  return `${path.slice(0, path.length - extension.length)}.loop${extension || ".db"}`;
}

/**
 * Opens (creating and migrating) the SQLite outcome store at {@link loopDatabasePath} of the
 * sync store's path. One process per file, like the sync store.
 */
export function openSqliteOutcomeStore(syncStorePath: string): Promise<OutcomeStore> {
  const path = loopDatabasePath(syncStorePath);
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    migrateSqlite(db, outcomeLedger);
    return Promise.resolve(new SqliteOutcomeStore(db));
  } catch (error) {
    return Promise.reject(new StoreError(`cannot open the SQLite outcome store at ${path}: ${(error as Error).message}`, { cause: error }));
  }
}

/** Runs synchronous work as a promise, store failures as {@link StoreError}. */
function settle<T>(what: string, work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(new StoreError(`${what} failed: ${(error as Error).message}`, { cause: error }));
  }
}

class SqliteOutcomeStore implements OutcomeStore {
  readonly kind = "sqlite" as const;
  readonly #db: DatabaseSync;
  #closed = false;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  recordEntry(entry: EntryInput): Promise<RecordEntryResult> {
    return settle("recording an entry", () =>
      inTransaction(this.#db, () => {
        const inserted = this.#db
          .prepare("INSERT INTO loop_entries (token, survey_id, uid, cpi, issued_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (token) DO NOTHING RETURNING *")
          .get(entry.token, entry.surveyId, entry.uid, entry.cpi, entry.at.toISOString()) as Row | undefined;
        if (inserted) return { kind: "recorded", entry: toEntry(inserted) };
        const existing = toEntry(this.#db.prepare("SELECT * FROM loop_entries WHERE token = ?").get(entry.token) as Row);
        return { kind: existing.surveyId === entry.surveyId && existing.uid === entry.uid ? "existing" : "conflict", entry: existing };
      }),
    );
  }

  recordOutcome(outcome: OutcomeInput): Promise<RecordOutcomeResult> {
    return settle("recording an outcome", () =>
      inTransaction(this.#db, () => {
        const repeat = this.#db.prepare("SELECT * FROM loop_outcomes WHERE token = ? AND outcome = ?").get(outcome.token, outcome.outcome) as Row | undefined;
        if (repeat) return { recorded: false, record: toOutcome(repeat) };
        const entry = this.#db.prepare("SELECT survey_id, outcome FROM loop_entries WHERE token = ?").get(outcome.token) as Row | undefined;
        const previous = this.#db.prepare("SELECT outcome FROM loop_outcomes WHERE token = ? ORDER BY sequence DESC LIMIT 1").get(outcome.token) as Row | undefined;
        const counter = this.#db.prepare("UPDATE loop_counters SET value = value + 1 WHERE name = 'outcomes' RETURNING value").get() as { value: number };
        const at = outcome.at.toISOString();
        const row = this.#db
          .prepare("INSERT INTO loop_outcomes (sequence, token, outcome, survey_id, previous_outcome, received_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *")
          .get(counter.value, outcome.token, outcome.outcome, entry?.survey_id ?? null, previous?.outcome ?? null, at) as Row;
        if (entry) this.#db.prepare("UPDATE loop_entries SET outcome = ?, outcome_at = ? WHERE token = ?").run(outcome.outcome, at, outcome.token);
        return { recorded: true, record: toOutcome(row) };
      }),
    );
  }

  listOutcomes(after: number, limit: number): Promise<OutcomeRecord[]> {
    return settle("listing outcomes", () =>
      (this.#db.prepare("SELECT * FROM loop_outcomes WHERE sequence > ? ORDER BY sequence LIMIT ?").all(after, limit) as Row[]).map(toOutcome),
    );
  }

  latestSequence(): Promise<number> {
    return settle("reading the outcome feed's sequence", () => Number((this.#db.prepare("SELECT value FROM loop_counters WHERE name = 'outcomes'").get() as Row).value));
  }

  pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // One short write transaction; WAL readers go on reading meanwhile.
    return settle(`pruning ${target}`, () => inTransaction(this.#db, () => this.#pruneTarget(target, before, limit)));
  }

  #pruneTarget(target: OutcomePruneTarget, before: Date, limit: number): PruneBatchOutcome {
    switch (target) {
      case "outcomes":
        return pruneSqliteFeedPrefix((sql) => this.#db.prepare(sql), { table: "loop_outcomes", timeColumn: "received_at" }, before, limit);
      case "entries": {
        const at = before.toISOString();
        const deleted = Number(this.#db.prepare(SQLITE_PRUNE_ENTRIES).run(at, at, limit).changes);
        return { deleted, more: deleted === limit, deferred: false };
      }
    }
  }

  feedHorizon(): Promise<number> {
    return settle("reading the outcome feed's horizon", () => Number((this.#db.prepare(SQLITE_OUTCOME_HORIZON).get() as Row).horizon));
  }

  conversion(): Promise<SurveyConversionCounts[]> {
    return settle("reading conversion", () => (this.#db.prepare(conversionSql).all() as Row[]).map(toConversionCounts));
  }

  outcomeCounts(): Promise<Readonly<Record<OutcomeKind, number>>> {
    return settle("counting outcomes", () => toOutcomeCounts(this.#db.prepare(outcomeCountsSql).all() as Row[]));
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#db.close();
    }
    return Promise.resolve();
  }
}

function toEntry(row: Row): EntryRecord {
  return {
    token: row.token as string,
    surveyId: Number(row.survey_id),
    uid: row.uid as string,
    cpi: Number(row.cpi),
    issuedAt: row.issued_at as string,
    outcome: (row.outcome as OutcomeKind | null) ?? null,
  };
}

function toOutcome(row: Row): OutcomeRecord {
  return {
    sequence: Number(row.sequence),
    token: row.token as string,
    outcome: row.outcome as OutcomeKind,
    surveyId: row.survey_id === null ? null : Number(row.survey_id),
    previousOutcome: (row.previous_outcome as OutcomeKind | null) ?? null,
    receivedAt: row.received_at as string,
  };
}
