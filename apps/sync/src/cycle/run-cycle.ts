import type { Survey } from "@sds/schemas";
import type { Logger } from "pino";
import type {
  CommitOutcome,
  CycleTransaction,
  QuarantineInput,
  RunCounts,
  RunInput,
  SyncStore,
} from "../inventory-store/store.ts";
import { emptyRunCounts } from "../inventory-store/store.ts";
import { TaskPool } from "./task-pool.ts";
import { CycleBatcher } from "./cycle-batcher.ts";
import {
  CycleAbortedError,
  CycleDeadlineError,
  errorMessage,
  failureKind,
  RepeatedIdsError,
  retryAfterOf,
  toError,
  type CycleResult,
} from "./cycle-result.ts";
import type { ClosureDecision, ClosureGuard } from "./closure-guard.ts";
import { closedSurveyIds, planSurvey, type SurveyPlan } from "./diff.ts";
import { fetchSurveyChildren, type FetchFailure } from "./fetch-children.ts";
import { ListingTally, type ListedSurvey } from "./listing-tally.ts";
import { DEFAULT_MAX_CPI } from "../loop/money.ts";
import { invalidIdIssues, priceIssues, quarantineOfListItem, unsafeSurveyUrlIssues } from "./quarantine.ts";
import { DEFAULT_MAX_RECORD_BYTES, limitChildRecords, oversizeIssues, utf8Bytes } from "./record-size-limits.ts";
import { isSurveyId } from "../survey-index/survey-id.ts";
import { rawHash } from "../survey-index/survey-record.ts";
import { settleSurvey, type FetchedRecords } from "./survey-write-plan.ts";
import type { SurveyIndex } from "../survey-index/survey-index.ts";
import type { SurveyStates } from "../survey-index/survey-states.ts";
import type { Upstream } from "../upstream/upstream.ts";

/** The settings of a cycle that come from the configuration (deadline, limits). */
export interface CycleSettings {
  /** Whole-cycle deadline in ms (`SYNC_CYCLE_TIMEOUT`): past it the cycle fails and nothing of it is kept. @default none */
  readonly deadlineMs?: number;
  /** Largest survey, qualification or quota record in bytes (`SYNC_MAX_RECORD_BYTES`); larger ones are quarantined. @default {@link DEFAULT_MAX_RECORD_BYTES} */
  readonly maxRecordBytes?: number;
  /** The highest Cpi taken for a price (`SYNC_MAX_CPI`); a survey asking more, or no price at all, is quarantined. @default {@link DEFAULT_MAX_CPI} */
  readonly maxCpi?: number;
}

/** What a cycle needs around it. */
export interface CycleContext extends CycleSettings {
  readonly store: SyncStore;
  readonly upstream: Upstream;
  readonly concurrency: number;
  readonly replicaId: string;
  readonly logger: Logger;
  /** Upstream HTTP requests made so far by this process (retries included): the cycle reports its share. */
  readonly requestCount: () => number;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** The mass-closure guard of this leader, kept across cycles. @default none: every absent survey closes */
  readonly closureGuard?: ClosureGuard;
}

/**
 * One sync cycle: one Get Surveys, read as it streams in; each survey diffed against the store
 * as it arrives and, when the diff calls for it, its qualifications and quotas fetched (at most
 * `concurrency` surveys at once: while every slot is busy the list is not read further, so the
 * list and the fetches overlap and memory is bounded by the slots, not the inventory). Outcomes
 * are written in batches into one store transaction, opened with the first entry of the list;
 * surveys absent from the list are closed once it is complete, and everything becomes visible at
 * once at the commit. A list that fails, even after surveys were read (cut short, or
 * `hasError` at its end), fails the cycle like a store failure: rolled back and recorded as a
 * failed run; the store keeps the last good data. An abort through `signal` abandons the cycle
 * without committing anything.
 *
 * The phases, each a method of {@link Cycle} that owns its failures: begin, stream the list,
 * close the missing, then commit, or fail (roll back and record).
 */
export async function runCycle(
  context: CycleContext,
  index: SurveyIndex,
  trigger: RunInput["trigger"],
  signal: AbortSignal,
): Promise<CycleResult> {
  const now = context.now ?? (() => new Date());
  const origin: CycleOrigin = {
    startedAt: now(),
    requestsBefore: context.requestCount(),
    deadlineAt: context.deadlineMs === undefined ? undefined : performance.now() + context.deadlineMs,
  };
  for (let attempt = 0; ; attempt += 1) {
    const cycle = new Cycle(context, index, trigger, signal, origin);
    try {
      await cycle.begin();
      await cycle.streamList();
      const closures = await cycle.closeMissing();
      return await cycle.commit(closures);
    } catch (error) {
      if (error instanceof RepeatedIdsError && attempt < MAX_RESTARTS) {
        // The first copy of a repeated id may be written already: start over with those ids set aside.
        await cycle.abandon();
        index.repeatedIds = new Set([...index.repeatedIds, ...error.ids]);
        context.logger.warn(
          { surveyIds: error.ids.slice(0, 20), repeated: error.ids.length },
          "the live list repeated survey ids; the cycle starts over with them set aside",
        );
        continue;
      }
      return await cycle.fail(error);
    } finally {
      cycle.dispose();
    }
  }
}

/** Times a cycle starts over after finding repeated ids (each start over reads the list again). */
const MAX_RESTARTS = 2;

/** What all attempts of one cycle share: its start, its request count, its deadline. */
interface CycleOrigin {
  readonly startedAt: Date;
  readonly requestsBefore: number;
  /** `performance.now()` at which the deadline passes. */
  readonly deadlineAt: number | undefined;
}

type Tally = { -readonly [K in keyof RunCounts]: RunCounts[K] };

/** The store transaction of a cycle and its batch writer, opened with the first entry of the list. */
interface OpenTransaction {
  readonly transaction: CycleTransaction;
  readonly writer: CycleBatcher;
}

/**
 * The state of one cycle, and its phases. One signal stops everything the cycle started (the
 * list and the per-survey fetches): {@link Cycle.halt} aborts it with the first reason the cycle
 * cannot succeed (shutdown, a store write refused, a list that failed), and that first reason is
 * what the failed run records.
 */
class Cycle {
  readonly #context: CycleContext;
  readonly #index: SurveyIndex;
  readonly #now: () => Date;
  readonly #run: Pick<RunInput, "replicaId" | "trigger" | "startedAt">;
  readonly #requestsBefore: number;
  readonly #counts: Tally = { ...emptyRunCounts() };
  readonly #fetchFailures: FetchFailure[] = [];
  readonly #listing: ListingTally;
  readonly #stop = new AbortController();
  readonly #outer: AbortSignal;
  readonly #onOuterAbort: () => void;
  readonly #deadline: NodeJS.Timeout | undefined;
  readonly #maxRecordBytes: number;
  readonly #maxCpi: number;
  #states: SurveyStates | undefined;
  #open: OpenTransaction | undefined;
  #cause: Error | undefined;

  constructor(
    context: CycleContext,
    index: SurveyIndex,
    trigger: RunInput["trigger"],
    signal: AbortSignal,
    origin: CycleOrigin,
  ) {
    this.#context = context;
    this.#index = index;
    this.#listing = new ListingTally(index.repeatedIds);
    this.#now = context.now ?? (() => new Date());
    this.#run = { replicaId: context.replicaId, trigger, startedAt: origin.startedAt };
    this.#requestsBefore = origin.requestsBefore;
    this.#maxRecordBytes = context.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    this.#maxCpi = context.maxCpi ?? DEFAULT_MAX_CPI;
    this.#outer = signal;
    this.#onOuterAbort = () => {
      this.halt(new CycleAbortedError(`aborted: ${errorMessage(signal.reason)}`, { cause: signal.reason }));
    };
    if (signal.aborted) this.#onOuterAbort();
    else signal.addEventListener("abort", this.#onOuterAbort, { once: true });
    const { deadlineMs } = context;
    if (deadlineMs !== undefined && origin.deadlineAt !== undefined) {
      this.#deadline = setTimeout(
        () => {
          this.halt(new CycleDeadlineError(deadlineMs));
        },
        Math.max(0, origin.deadlineAt - performance.now()),
      );
    }
  }

  /** Stops the cycle's list and fetches; the first reason given is the one the run records. */
  halt(reason: unknown): void {
    this.#cause ??= toError(reason);
    this.#stop.abort(this.#cause);
  }

  /** Phase 1: the stored states to diff against (from the in-memory index, loaded once per leadership). */
  async begin(): Promise<void> {
    this.#states = await this.#index.load(this.#context.store);
    this.#throwIfHalted();
  }

  /**
   * Phase 2: the live list, entry by entry as it streams in; each survey diffed, fetched when the
   * diff calls for it, and written in batches. Any failure (the list, a write, an abort) halts the
   * cycle; the phase returns only once no fetch is running, and throws the first failure.
   */
  async streamList(): Promise<void> {
    const { upstream, concurrency } = this.#context;
    const states = this.#requireStates();
    const pool = new TaskPool(concurrency);
    try {
      for await (const entry of upstream.liveSurveys(this.#stop.signal)) {
        // Once open, no await per entry: a no-change cycle runs this loop 10,000 times.
        const { writer } = this.#open ?? (await this.#openTransaction());
        if (entry.invalid) {
          writer.addQuarantine([this.#listing.quarantine(entry.invalid)]);
          continue;
        }
        const survey = entry.survey;
        // The survey as received: what its hash, its size and a quarantine entry are taken from.
        const raw = entry.json;
        const refused = this.#refusal(survey, raw);
        if (refused) {
          writer.addQuarantine([this.#listing.refuse(refused)]);
          continue;
        }
        // Once an id is found repeated the cycle will start over: the rest of the list is only read, to find every repeated id at once.
        if (!this.#listing.list({ survey, raw }) || this.#listing.repeated.size > 0) continue;
        const taking = this.#take({ survey, raw }, states, writer, pool);
        if (taking) await taking;
        if (this.#cause !== undefined) break;
      }
      if (this.#cause === undefined && this.#listing.repeated.size === 0) {
        const { writer } = await this.#openTransaction();
        const { once, quarantine } = this.#listing.settleSetAside();
        writer.addQuarantine(quarantine);
        for (const listed of once) {
          await this.#take(listed, states, writer, pool);
          if (this.#halted()) break;
        }
      }
    } catch (error) {
      this.halt(error);
    }
    // No fetch may outlive the phase: the cycle is rolled back (or committed) only after this.
    await pool.drain().catch((error: unknown) => {
      this.halt(error);
    });
    this.#throwIfHalted();
    if (this.#listing.repeated.size > 0) throw new RepeatedIdsError([...this.#listing.repeated].sort((a, b) => a - b));
    this.#listing.report(this.#context.logger);
  }

  /**
   * One listed survey: diffed, and fetched (in the pool) or written as the diff says. Returns
   * what to wait for, or undefined for a survey that needs nothing (most of them, most cycles),
   * which so costs the loop no await.
   */
  #take(listed: ListedSurvey, states: SurveyStates, writer: CycleBatcher, pool: TaskPool): Promise<void> | undefined {
    const { survey, raw } = listed;
    this.#counts.listed += 1;
    const hash = rawHash(raw);
    if (states.isCurrent(survey.SurveyId, hash, survey.Has_Qualifications, survey.Has_Quotas)) return undefined;
    const plan = planSurvey(survey, states.get(survey.SurveyId), raw, hash);
    if (plan === undefined) return undefined;
    if (plan.fetchQualifications || plan.fetchQuotas) return pool.run(() => this.#fetchAndWrite(plan, writer));
    writer.resolveQuarantine(resolvedChildKeys(plan, {}));
    return writer.addSurvey(settleSurvey(plan, {}), survey.SurveyId);
  }

  /** The quarantine entry of a survey the schema accepted but this service refuses (its id, its URL, its price, its size); undefined when it is fine. */
  #refusal(survey: Survey, raw: string): QuarantineInput | undefined {
    if (!isSurveyId(survey.SurveyId)) return quarantineOfListItem(survey, raw, invalidIdIssues(survey.SurveyId));
    const unsafeUrl = unsafeSurveyUrlIssues(survey.SurveyUrl);
    if (unsafeUrl !== undefined) return quarantineOfListItem(survey, raw, unsafeUrl);
    const price = priceIssues(survey.Cpi, this.#maxCpi);
    if (price !== undefined) return quarantineOfListItem(survey, raw, price);
    const limit = this.#maxRecordBytes;
    const bytes = utf8Bytes(raw, limit);
    return bytes > limit ? quarantineOfListItem(survey, raw, oversizeIssues(bytes, limit)) : undefined;
  }

  /** One survey's fetches and its write; a failure halts the cycle instead of rejecting. */
  async #fetchAndWrite(plan: SurveyPlan, writer: CycleBatcher): Promise<void> {
    try {
      const fetched = limitChildRecords(
        await fetchSurveyChildren(plan, this.#context.upstream, this.#stop.signal),
        plan.survey.SurveyId,
        this.#maxRecordBytes,
      );
      if (fetched.qualifications) this.#counts.qualificationsFetched += 1;
      if (fetched.quotas) this.#counts.quotasFetched += 1;
      this.#fetchFailures.push(...fetched.failures);
      writer.addQuarantine(fetched.quarantine);
      writer.resolveQuarantine(resolvedChildKeys(plan, fetched));
      await writer.addSurvey(settleSurvey(plan, fetched), plan.survey.SurveyId);
    } catch (error) {
      this.halt(error);
    }
  }

  /**
   * Phase 3: stored live surveys absent from the complete list are closed, unless the
   * mass-closure guard holds them (then they stay live and are counted as held).
   */
  async closeMissing(): Promise<ClosureDecision> {
    const states = this.#requireStates();
    const missing = closedSurveyIds(states, this.#listing.listed, this.#listing.present);
    const guard = this.#context.closureGuard;
    const live = guard ? states.liveCount() : 0;
    const decision = guard
      ? guard.decide(missing, live)
      : { close: missing, held: [], next: new Map<number, number>() };
    if (decision.held.length > 0) {
      this.#context.logger.warn(
        {
          held: decision.held.length,
          closing: decision.close.length,
          live,
          maxShare: guard?.settings.maxShare,
          confirmCycles: guard?.settings.confirmCycles,
          sample: decision.held.slice(0, 20),
        },
        "mass closure held: too many live surveys are absent from the list; they are still served until they stay absent for SYNC_CLOSURE_CONFIRM_CYCLES cycles or POST /v1/sync/closures/confirm",
      );
    }
    this.#counts.closuresHeld = decision.held.length;
    const { writer } = await this.#openTransaction();
    writer.addClosed(decision.close);
    await writer.flush();
    this.#throwIfHalted();
    return decision;
  }

  /** Phase 4: records the run and commits; then (only then) the in-memory index learns the new states. */
  async commit(closures: ClosureDecision): Promise<CycleResult> {
    const { transaction, writer } = await this.#openTransaction();
    const fetchFailures = this.#fetchFailures;
    this.#counts.fetchFailures = fetchFailures.length;
    if (fetchFailures.length > 0) {
      this.#context.logger.warn(
        {
          failures: fetchFailures.length,
          sample: fetchFailures
            .slice(0, 5)
            .map((failure) => ({ surveyId: failure.surveyId, kind: failure.kind, error: errorMessage(failure.error) })),
        },
        "per-survey fetches failed; those surveys are refetched next cycle",
      );
    }
    // Past the deadline (or asked to stop) while closing: nothing is committed.
    this.#throwIfHalted();
    const finishedAt = this.#now();
    this.#counts.upstreamRequests = this.#context.requestCount() - this.#requestsBefore;
    const outcome: CommitOutcome = await transaction.commit({
      ...this.#run,
      status: "succeeded",
      finishedAt,
      counts: this.#counts,
      error: null,
    });
    this.#open = undefined;
    this.#context.closureGuard?.accept(closures);
    this.#index.repeatedIds = this.#listing.repeatedIds();
    const states = this.#requireStates();
    for (const state of writer.states.values()) states.set(state);
    for (const id of closures.close) states.close(id);
    return {
      status: "succeeded",
      runId: outcome.runId,
      counts: this.#counts,
      startedAt: this.#run.startedAt,
      finishedAt,
      error: null,
      failure: null,
      retryAfterMs: retryAfterOf(fetchFailures.map((failure) => failure.error)),
      firstSequence: outcome.firstSequence,
      lastSequence: outcome.lastSequence,
      fetchFailures,
    };
  }

  /** Drops this attempt without a trace (no run recorded): the cycle starts over. */
  async abandon(): Promise<void> {
    this.halt(new Error("the cycle starts over"));
    await this.#open?.transaction.rollback().catch(() => undefined);
    this.#open = undefined;
  }

  /** The failure path of every phase: roll back what was written, record the failed run, never throw. */
  async fail(error: unknown): Promise<CycleResult> {
    this.halt(error);
    const cause = this.#cause ?? toError(error);
    if (this.#open) {
      // Written batches are discarded; the in-memory index was not touched, but drop it to be safe.
      await this.#open.transaction.rollback().catch(() => undefined);
      this.#open = undefined;
      this.#index.invalidate();
    }
    const finishedAt = this.#now();
    const message = errorMessage(cause);
    const counts = {
      ...emptyRunCounts(),
      listed: this.#counts.listed,
      fetchFailures: this.#fetchFailures.length,
      upstreamRequests: this.#context.requestCount() - this.#requestsBefore,
    };
    let runId: number | undefined;
    try {
      runId = await this.#context.store.recordRun({
        ...this.#run,
        status: "failed",
        finishedAt,
        counts,
        error: message,
      });
    } catch (recordError) {
      this.#context.logger.error({ err: recordError }, "could not record the failed run");
    }
    return {
      status: "failed",
      runId,
      counts,
      startedAt: this.#run.startedAt,
      finishedAt,
      error: message,
      failure: failureKind(cause),
      cause,
      retryAfterMs: retryAfterOf([cause, ...this.#fetchFailures.map((failure) => failure.error)]),
      firstSequence: null,
      lastSequence: null,
      fetchFailures: this.#fetchFailures,
    };
  }

  /** Lets go of the outer signal and the deadline. */
  dispose(): void {
    this.#outer.removeEventListener("abort", this.#onOuterAbort);
    clearTimeout(this.#deadline);
  }

  async #openTransaction(): Promise<OpenTransaction> {
    if (this.#open === undefined) {
      const transaction = await this.#context.store.beginCycle(this.#run.startedAt);
      this.#open = { transaction, writer: new CycleBatcher(transaction, this.#counts) };
    }
    return this.#open;
  }

  #requireStates(): SurveyStates {
    if (this.#states === undefined) throw new Error("the cycle has not begun");
    return this.#states;
  }

  /** Read through a method: a check of the field narrows it, but a fetch or a timer may halt the cycle during any await. */
  #halted(): boolean {
    return this.#cause !== undefined;
  }

  #throwIfHalted(): void {
    if (this.#cause !== undefined) throw this.#cause;
  }
}

/** Quarantine keys of a survey's children that came back in good shape (or are no longer asked for). */
function resolvedChildKeys(plan: SurveyPlan, fetched: FetchedRecords): string[] {
  const id = plan.survey.SurveyId;
  const keys: string[] = [];
  if ((plan.fetchQualifications && fetched.qualifications) || plan.clearQualifications)
    keys.push(`qualifications:${id}`);
  if ((plan.fetchQuotas && fetched.quotas) || plan.clearQuotas) keys.push(`quotas:${id}`);
  return keys;
}
