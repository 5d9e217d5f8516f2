import type { StatementSync } from "node:sqlite";
import { StoreError } from "../common/errors.ts";
import { execute, one } from "../database/program.ts";
import type { SqliteConnection } from "../database/sqlite-driver.ts";
import { quarantineColumns, quarantineUpsertConflict, surveyUpsertConflict, surveyWriteColumns } from "./cycle-sql.ts";
import {
  COMPLETE_CYCLE_RUN,
  LATEST_SEQUENCE,
  OPEN_CYCLE_RUN,
  RESOLVE_LIST_QUARANTINE,
  SET_LATEST_SEQUENCE,
  runParams,
} from "./inventory-records.ts";
import type { CommitOutcome, CycleBatch, CycleTransaction, RunInput } from "./store.ts";

const bool = (value: boolean): number => (value ? 1 : 0);

/** SQLite's default auto-checkpoint threshold, in WAL pages, restored after a cycle's commit. */
export const WAL_AUTOCHECKPOINT_PAGES = 1000;

/**
 * A cycle's transaction on the SQLite writer connection: `BEGIN IMMEDIATE` at open, each batch
 * written as it comes, the counter row and the run record updated at commit. Readers use another
 * connection, so under WAL they keep seeing the last committed state until the commit.
 */
export class SqliteCycleTransaction implements CycleTransaction {
  readonly #connection: SqliteConnection;
  readonly #at: string;
  readonly #runId: number;
  readonly #onEnd: (committed: boolean) => void;
  #nextSequence: number;
  readonly #firstSequence: number;
  #open = true;

  private constructor(connection: SqliteConnection, at: Date, onEnd: (committed: boolean) => void) {
    this.#connection = connection;
    this.#at = at.toISOString();
    this.#onEnd = onEnd;
    connection.db.exec("BEGIN IMMEDIATE");
    try {
      // BEGIN IMMEDIATE holds the write lock: the counter cannot move under this transaction.
      this.#firstSequence = connection.run(one(LATEST_SEQUENCE)) + 1;
      this.#nextSequence = this.#firstSequence;
      this.#runId = connection.run(one(OPEN_CYCLE_RUN, this.#at, this.#at));
    } catch (error) {
      connection.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** The writer connection's prepared statement of a text (the cycle's per-row writes, SQLite's own). */
  #statement(text: string): StatementSync {
    return this.#connection.prepare(text).statement;
  }

  /** Opens the transaction. `onEnd` learns when it is over, and whether it committed (then the WAL wants a checkpoint). */
  static begin(connection: SqliteConnection, at: Date, onEnd: (committed: boolean) => void): SqliteCycleTransaction {
    try {
      return new SqliteCycleTransaction(connection, at, onEnd);
    } catch (error) {
      onEnd(false);
      throw error;
    }
  }

  write(batch: CycleBatch): Promise<void> {
    this.#assertOpen();
    this.#write(batch);
    return Promise.resolve();
  }

  #write(batch: CycleBatch): void {
    const at = this.#at;
    const upsertSurvey = this.#statement(`
      INSERT INTO surveys (id, status, closed_at, first_seen_at, changed_at, ${surveyWriteColumns})
      VALUES (?, 'live', NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${surveyUpsertConflict}`);
    for (const survey of batch.surveys) {
      const c = survey.columns;
      upsertSurvey.run(
        survey.id,
        at,
        at,
        c.languageId,
        c.cpi,
        c.loi,
        c.ir,
        bool(c.desktopAllowed),
        bool(c.mobileAllowed),
        bool(c.tabletAllowed),
        c.lastUpdated,
        c.qualUpdated,
        c.quotaUpdated,
        survey.qualificationsMarker,
        survey.quotasMarker,
        survey.quotaCount,
        bool(survey.needsRefetch),
        survey.rawHash,
        survey.recordHash,
        survey.raw,
      );
    }

    const closeSurvey = this.#statement(
      "UPDATE surveys SET status = 'closed', closed_at = ?, changed_at = ? WHERE id = ? AND status = 'live'",
    );
    const resolveOfSurvey = this.#statement(
      "UPDATE quarantine SET resolved_at = ? WHERE survey_id = ? AND resolved_at IS NULL",
    );
    for (const id of batch.closedSurveyIds) {
      closeSurvey.run(at, at, id);
      resolveOfSurvey.run(at, id);
    }

    const deleteQualifications = this.#statement("DELETE FROM qualifications WHERE survey_id = ?");
    const insertQualification = this.#statement(
      "INSERT INTO qualifications (survey_id, position, qualification_id, qualification_type_id, raw) VALUES (?, ?, ?, ?, ?)",
    );
    for (const replacement of batch.qualifications) {
      deleteQualifications.run(replacement.surveyId);
      replacement.records.forEach((record, position) =>
        insertQualification.run(replacement.surveyId, position, record.key, record.typeId, record.raw),
      );
    }
    const deleteQuotas = this.#statement("DELETE FROM quotas WHERE survey_id = ?");
    const insertQuota = this.#statement("INSERT INTO quotas (survey_id, position, quota_id, raw) VALUES (?, ?, ?, ?)");
    for (const replacement of batch.quotas) {
      deleteQuotas.run(replacement.surveyId);
      replacement.records.forEach((record, position) =>
        insertQuota.run(replacement.surveyId, position, record.key, record.raw),
      );
    }

    const insertChange = this.#statement(
      "INSERT INTO changes (sequence, run_id, type, survey_id, occurred_at) VALUES (?, ?, ?, ?, ?)",
    );
    for (const change of batch.changes) {
      insertChange.run(this.#nextSequence, this.#runId, change.type, change.surveyId, at);
      this.#nextSequence += 1;
    }

    const quarantine = this.#statement(
      `INSERT INTO quarantine (${quarantineColumns}) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?) ${quarantineUpsertConflict}`,
    );
    for (const item of batch.quarantine)
      quarantine.run(item.key, item.surveyId, item.source, at, at, this.#runId, item.item, item.issues);
    const resolve = this.#statement("UPDATE quarantine SET resolved_at = ? WHERE key = ? AND resolved_at IS NULL");
    for (const key of batch.resolvedQuarantineKeys) resolve.run(at, key);
  }

  commit(run: RunInput): Promise<CommitOutcome> {
    try {
      this.#assertOpen();
      const hasChanges = this.#nextSequence > this.#firstSequence;
      const firstSequence = hasChanges ? this.#firstSequence : null;
      const lastSequence = hasChanges ? this.#nextSequence - 1 : null;
      const connection = this.#connection;
      connection.run(execute(COMPLETE_CYCLE_RUN, ...runParams(run), firstSequence, lastSequence, this.#runId));
      if (lastSequence !== null) connection.run(execute(SET_LATEST_SEQUENCE, lastSequence));
      if (run.status === "succeeded") connection.run(execute(RESOLVE_LIST_QUARANTINE, this.#at, this.#runId));
      // By now the WAL holds the whole cycle (thousands of pages after a first sync): SQLite's
      // auto-checkpoint would copy them into the database and fsync inside this COMMIT, adding
      // ~175 ms to a 10,000-survey first sync. The store checkpoints right after instead (`onEnd`).
      this.#connection.db.exec("PRAGMA wal_autocheckpoint = 0");
      try {
        this.#connection.db.exec("COMMIT");
      } finally {
        this.#connection.db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      }
      this.#end(true);
      return Promise.resolve({ runId: this.#runId, firstSequence, lastSequence });
    } catch (error) {
      this.#abandon();
      throw error;
    }
  }

  rollback(): Promise<void> {
    this.#abandon();
    return Promise.resolve();
  }

  #abandon(): void {
    if (!this.#open) return;
    try {
      this.#connection.db.exec("ROLLBACK");
    } catch {
      // SQLite already rolled back (some errors end the transaction themselves).
    }
    this.#end(false);
  }

  #end(committed: boolean): void {
    this.#open = false;
    this.#onEnd(committed);
  }

  #assertOpen(): void {
    if (!this.#open) throw new StoreError("the cycle transaction is already over");
  }
}
