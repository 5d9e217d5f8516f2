import type { DialectName } from "../../database/sql-dialect.ts";
import type { Program } from "../../database/program.ts";
import { pruneFeedPrefix, type PruneBatchOutcome } from "../../database/retention.ts";
import { command, statement } from "../../database/statement.ts";
import { execute, one, WriteRolledBack } from "../../database/program.ts";
import { integer } from "../../database/columns.ts";
import * as events from "./event-position-records.ts";
import * as records from "./loop-records.ts";
import type { RecordingSettings } from "./loop-records.ts";
import * as routing from "./routing-data-records.ts";
import type { RoutingDataWrite } from "./routing-data-records.ts";
import type {
  EventPosition,
  EntryAdmission,
  EntryInput,
  HistoryInput,
  LoopStore,
  OutcomeInput,
  OutcomePruneTarget,
  RecordEntryResult,
} from "./loop-store.ts";

/** The outcome feed's horizon in one statement (one snapshot): below its oldest kept row, else the counter. */
const OUTCOME_HORIZON = statement<[], number>(
  "SELECT COALESCE((SELECT MIN(sequence) FROM loop_outcomes) - 1, (SELECT value FROM loop_counters WHERE name = 'outcomes')) AS horizon",
  (row) => integer(row.horizon),
);
/** The oldest entries issued before the horizon that got no outcome after it (`loop_entries_issued`). */
const PRUNE_ENTRIES = command<[issuedBefore: string, outcomeBefore: string, limit: number]>(
  "DELETE FROM loop_entries WHERE token IN (SELECT token FROM loop_entries WHERE issued_at < ? AND (outcome_at IS NULL OR outcome_at < ?) ORDER BY issued_at LIMIT ?)",
);

/** One batch of retention of the loop's records (see {@link OutcomePruneTarget}). */
function* pruneLoopRecords(target: OutcomePruneTarget, before: Date, limit: number): Program<PruneBatchOutcome> {
  switch (target) {
    case "outcomes":
      return yield* pruneFeedPrefix({ table: "loop_outcomes", timeColumn: "received_at" }, before, limit);
    case "entries": {
      const at = before.toISOString();
      const deleted = yield* execute(PRUNE_ENTRIES, at, at, limit);
      return { deleted, more: deleted === limit, deferred: false };
    }
  }
}

/**
 * The loop store's methods, once for both drivers: each runs its program (loop-records.ts,
 * routing-data-records.ts) as a read or as a write transaction. A driver says how it runs a
 * program (`runRead`, `runWrite`) and how it closes.
 */
export abstract class ProgramLoopStore implements LoopStore {
  abstract readonly kind: DialectName;
  /** What recording needs from the configuration (the yield cut-off). */
  protected readonly settings: RecordingSettings;

  constructor(settings: RecordingSettings) {
    this.settings = settings;
  }

  get recordingSettings(): RecordingSettings {
    return this.settings;
  }

  /** Runs a program that only reads. */
  protected abstract runRead<T>(program: Program<T>): Promise<T>;
  /** Runs a program in one write transaction; `what` names it in errors. Durable when it resolves. */
  protected abstract runWrite<T>(what: string, program: Program<T>): Promise<T>;

  abstract close(): Promise<void>;

  recordEntry<Refusal = never>(
    entry: EntryInput,
    admit?: EntryAdmission<Refusal>,
  ): Promise<RecordEntryResult<Refusal>> {
    return this.runWrite("recording an entry", records.recordEntry(entry, admit, this.settings));
  }

  recordOutcome(outcome: OutcomeInput) {
    return this.runWrite("recording an outcome", records.recordOutcome(outcome, this.settings));
  }

  currentOutcomes(tokens: readonly string[]) {
    return this.runRead(records.currentOutcomes(tokens));
  }

  listOutcomes(after: number, limit: number) {
    return this.runRead(records.listOutcomes(after, limit));
  }

  listOutcomesWithEntries(after: number, limit: number) {
    return this.runRead(events.listOutcomesWithEntries(after, limit));
  }

  eventPositions() {
    return this.runRead(events.eventPositions());
  }

  saveEventPosition(position: EventPosition) {
    return this.runWrite("saving an event position", events.saveEventPosition(position));
  }

  latestSequence() {
    return this.runRead(records.latestSequence());
  }

  conversion() {
    return this.runRead(records.lifetimeConversion());
  }

  advanceWindows(now: Date) {
    return this.runWrite("advancing the windows", records.advanceWindows(now));
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

  respondentHistory(uid: string, now: Date) {
    return this.runRead(records.respondentHistory(uid, now));
  }

  entryOf(token: string) {
    return this.runRead(records.entryOf(token));
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

  async write<T>(what: string, program: Program<T>): Promise<T> {
    try {
      return await this.runWrite(what, program);
    } catch (error) {
      // The program's own result, given to rollBack (program.ts): its type is the program's.
      if (error instanceof WriteRolledBack) return error.value as T;
      throw error;
    }
  }

  pruneHourlyCounts(before: Date) {
    return this.runWrite("pruning hourly counts", records.pruneHourlyCounts(before));
  }

  pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
    // One short write transaction; readers go on reading meanwhile (WAL, MVCC), and recorders write young rows only.
    return this.runWrite(`pruning ${target}`, pruneLoopRecords(target, before, limit));
  }

  feedHorizon(): Promise<number> {
    return this.runRead(one(OUTCOME_HORIZON));
  }
}
