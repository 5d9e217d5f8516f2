import type { Program } from "../database/program.ts";
import type { PruneBatchOutcome } from "../database/retention.ts";
import type { DialectName } from "../database/sql-dialect.ts";
import * as records from "./inventory-records.ts";
import { pruneInventory, type PruneTarget } from "./inventory-retention.ts";
import type {
  CollectionInput,
  CommitOutcome,
  CycleCommit,
  CycleTransaction,
  Leadership,
  RunInput,
  SurveyQuery,
  SyncStore,
} from "./store.ts";

/**
 * The inventory store's methods, once for both drivers: each runs its program
 * (inventory-records.ts, inventory-retention.ts) as a read or as a write transaction. A driver
 * says how it runs a program (`runRead`, `runWrite`) and adds what only it does: the cycle's
 * transaction, leadership, closing.
 */
export abstract class ProgramInventoryStore implements SyncStore {
  abstract readonly kind: DialectName;
  abstract readonly leadership: Leadership;

  /** Runs a program that only reads (what committed cycles wrote; never an open cycle's writes). */
  protected abstract runRead<T>(program: Program<T>): Promise<T>;
  /** Runs a program in one short write transaction of its own. */
  protected abstract runWrite<T>(program: Program<T>): Promise<T>;

  abstract beginCycle(at: Date): Promise<CycleTransaction>;
  abstract close(): Promise<void>;

  async commitCycle(commit: CycleCommit): Promise<CommitOutcome> {
    const transaction = await this.beginCycle(commit.at);
    try {
      await transaction.write(commit);
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    // A failed commit rolls itself back.
    return transaction.commit(commit.run);
  }

  loadSurveyStates() {
    return this.runRead(records.loadSurveyStates());
  }

  recordRun(run: RunInput) {
    return this.runWrite(records.recordRun(run));
  }

  listSurveys(query: SurveyQuery) {
    return this.runRead(records.listSurveys(query));
  }

  getSurvey(id: number) {
    return this.runRead(records.getSurvey(id));
  }

  getSurveys(ids: readonly number[]) {
    return this.runRead(records.getSurveys(ids));
  }

  surveyRecords(ids: readonly number[]) {
    return this.runRead(records.surveyRecords(ids));
  }

  refetchPendingIds() {
    return this.runRead(records.refetchPendingIds());
  }

  listChanges(after: number, limit: number) {
    return this.runRead(records.listChanges(after, limit));
  }

  latestSequence() {
    return this.runRead(records.latestSequence());
  }

  listRuns(limit: number) {
    return this.runRead(records.listRuns(limit));
  }

  lastSuccessfulRun() {
    return this.runRead(records.lastSuccessfulRun());
  }

  stats() {
    return this.runRead(records.stats());
  }

  countByLanguage() {
    return this.runRead(records.countByLanguage());
  }

  listQuarantine(limit: number) {
    return this.runRead(records.listQuarantine(limit));
  }

  feedHorizon() {
    return this.runRead(records.feedHorizon());
  }

  pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    return this.runWrite(pruneInventory(target, before, limit));
  }

  async saveCollections(collections: readonly CollectionInput[], fetchedAt: Date): Promise<void> {
    // A handful of collections a day: one statement each, in one transaction.
    if (collections.length > 0) await this.runWrite(records.saveCollections(collections, fetchedAt));
  }

  listCollections() {
    return this.runRead(records.listCollections());
  }

  getCollection(name: string) {
    return this.runRead(records.getCollection(name));
  }
}
