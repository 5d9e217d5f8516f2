import type {
  ChangeType,
  ChildReplacement,
  CycleTransaction,
  QuarantineInput,
  RunCounts,
  SurveyWrite,
} from "../inventory-store/store.ts";
import type { SurveyWritePlan } from "./survey-write-plan.ts";
import { SurveyStates } from "../survey-index/survey-states.ts";

/** Surveys per batch written to the open cycle transaction: bounds memory without many round trips. */
export const CYCLE_BATCH_SIZE = 200;

type Tally = { -readonly [K in keyof RunCounts]: RunCounts[K] };

/**
 * Collects survey outcomes, closures and quarantined items into batches and writes each full
 * batch to the cycle's transaction, one write at a time (the PostgreSQL connection of a
 * transaction runs one statement at a time; SQLite's writer is synchronous anyway). Keeps the
 * cycle's counts and the states to put in the in-memory index after the commit.
 */
export class CycleBatcher {
  readonly #transaction: CycleTransaction;
  readonly #batchSize: number;
  readonly counts: Tally;
  /** Held compactly too: a first cycle keeps one per survey until it commits. */
  readonly states = new SurveyStates();
  #surveys: SurveyWrite[] = [];
  #closedSurveyIds: number[] = [];
  #qualifications: ChildReplacement[] = [];
  #quotas: ChildReplacement[] = [];
  #changes: { type: ChangeType; surveyId: number }[] = [];
  #quarantine: QuarantineInput[] = [];
  #resolvedQuarantineKeys: string[] = [];
  #pending = 0;
  #writing: Promise<void> = Promise.resolve();

  constructor(transaction: CycleTransaction, counts: Tally, batchSize = CYCLE_BATCH_SIZE) {
    this.#transaction = transaction;
    this.counts = counts;
    this.#batchSize = batchSize;
  }

  /** Adds one survey's write plan; resolves once any batch it completed is written. */
  async addSurvey(plan: SurveyWritePlan, surveyId: number): Promise<void> {
    if (plan.write) {
      this.#surveys.push(plan.write);
      this.states.set(plan.state);
    }
    if (plan.qualifications) this.#qualifications.push(plan.qualifications);
    if (plan.quotas) this.#quotas.push(plan.quotas);
    for (const type of plan.changes) {
      this.#changes.push({ type, surveyId });
      this.#count(type);
    }
    this.#pending += 1;
    if (this.#pending >= this.#batchSize) await this.flush();
  }

  /** Surveys absent from the live list. */
  addClosed(ids: readonly number[]): void {
    for (const id of ids) {
      this.#closedSurveyIds.push(id);
      this.#changes.push({ type: "closed", surveyId: id });
    }
    this.counts.closed += ids.length;
    this.counts.changes += ids.length;
    this.#pending += ids.length;
  }

  addQuarantine(items: readonly QuarantineInput[]): void {
    this.#quarantine.push(...items);
    this.counts.quarantined += items.length;
  }

  /** Quarantine keys whose item arrived in good shape this cycle. */
  resolveQuarantine(keys: readonly string[]): void {
    this.#resolvedQuarantineKeys.push(...keys);
  }

  /** Writes what has been collected (after any write still in progress). */
  flush(): Promise<void> {
    const batch = {
      surveys: this.#surveys,
      closedSurveyIds: this.#closedSurveyIds,
      qualifications: this.#qualifications,
      quotas: this.#quotas,
      changes: this.#changes,
      quarantine: this.#quarantine,
      resolvedQuarantineKeys: this.#resolvedQuarantineKeys,
    };
    this.#surveys = [];
    this.#closedSurveyIds = [];
    this.#qualifications = [];
    this.#quotas = [];
    this.#changes = [];
    this.#quarantine = [];
    this.#resolvedQuarantineKeys = [];
    this.#pending = 0;
    const empty =
      batch.surveys.length +
        batch.closedSurveyIds.length +
        batch.qualifications.length +
        batch.quotas.length +
        batch.changes.length +
        batch.quarantine.length +
        batch.resolvedQuarantineKeys.length ===
      0;
    if (!empty) this.#writing = this.#writing.then(() => this.#transaction.write(batch));
    return this.#writing;
  }

  #count(type: ChangeType): void {
    this.counts.changes += 1;
    if (type === "opened") this.counts.opened += 1;
    else if (type === "reopened") this.counts.reopened += 1;
    else if (type === "updated") this.counts.updated += 1;
    else if (type === "qualifications_changed") this.counts.qualificationsChanged += 1;
    else if (type === "quotas_changed") this.counts.quotasChanged += 1;
  }
}
