import type { PruneBatchOutcome } from "../../store/retention.ts";
import type { Program, ProgramDialect } from "./loop-program.ts";
import * as records from "./loop-records.ts";
import * as routing from "./routing-data-records.ts";
import type { RoutingDataWrite } from "./routing-data-records.ts";
import type {
  EntryAdmission,
  EntryInput,
  HistoryInput,
  LoopStore,
  OutcomeInput,
  OutcomePruneTarget,
  RecordEntryResult,
} from "./loop-store.ts";

/**
 * The loop store's methods, once for both drivers: each runs its program (loop-records.ts,
 * routing-data-records.ts) as a read or as a write transaction. A driver says how it runs a
 * program (`runRead`, `runWrite`) and adds what only it does: pruning in batches, the feed's
 * horizon, closing.
 */
export abstract class ProgramLoopStore implements LoopStore {
  abstract readonly kind: ProgramDialect;

  /** Runs a program that only reads. */
  protected abstract runRead<T>(program: Program<T>): Promise<T>;
  /** Runs a program in one write transaction; `what` names it in errors. Durable when it resolves. */
  protected abstract runWrite<T>(what: string, program: Program<T>): Promise<T>;

  abstract pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome>;
  abstract feedHorizon(): Promise<number>;
  abstract close(): Promise<void>;

  recordEntry<Refusal = never>(
    entry: EntryInput,
    admit?: EntryAdmission<Refusal>,
  ): Promise<RecordEntryResult<Refusal>> {
    return this.runWrite("recording an entry", records.recordEntry(this.kind, entry, admit));
  }

  recordOutcome(outcome: OutcomeInput) {
    return this.runWrite("recording an outcome", records.recordOutcome(this.kind, outcome));
  }

  currentOutcomes(tokens: readonly string[]) {
    return this.runRead(records.currentOutcomes(tokens));
  }

  listOutcomes(after: number, limit: number) {
    return this.runRead(records.listOutcomes(after, limit));
  }

  latestSequence() {
    return this.runRead(records.latestSequence());
  }

  conversion() {
    return this.runRead(records.lifetimeConversion());
  }

  advanceWindows(now: Date) {
    return this.runWrite("advancing the windows", records.advanceWindows(this.kind, now));
  }

  async conversionSummary(now: Date, limit: number) {
    // A write (a transaction, an fsync) only once an hour, when an hour leaves a window.
    if (await this.runRead(records.windowsDue(now))) await this.advanceWindows(now);
    return this.runRead(records.conversionSummary(limit));
  }

  conversionVersion(now: Date) {
    return this.runRead(records.conversionVersion(now));
  }

  outcomeCounts() {
    return this.runRead(records.outcomeCounts());
  }

  orphanCount() {
    return this.runRead(records.orphanCount());
  }

  respondentHistory(uid: string, limit: number) {
    return this.runRead(records.respondentHistory(uid, limit));
  }

  importHistory(entries: readonly HistoryInput[]) {
    return this.runWrite("importing history", records.importHistory(entries));
  }

  writeRoutingData(writes: readonly RoutingDataWrite[], at: Date) {
    return this.runWrite("routing data", routing.writeRoutingData(writes, at));
  }

  forgetRoutingData(surveyIds: readonly number[]) {
    return this.runWrite("routing data", routing.forgetRoutingData(surveyIds));
  }

  routingDataVersion() {
    return this.runRead(routing.routingDataVersion());
  }

  readRoutingData() {
    return this.runRead(routing.readRoutingData());
  }

  yieldCounts() {
    return this.runRead(routing.yieldCounts());
  }

  read<T>(program: Program<T>): Promise<T> {
    return this.runRead(program);
  }

  write<T>(what: string, program: Program<T>): Promise<T> {
    return this.runWrite(what, program);
  }

  pruneHourlyCounts(before: Date) {
    return this.runWrite("pruning hourly counts", records.pruneHourlyCounts(before));
  }
}
