import type { InvalidItem } from "@sds/schemas";
import type { Logger } from "pino";
import type { CycleTransaction, QuarantineInput, RunCounts, RunInput, StoredSurveyState, SyncStore } from "../store/store.ts";
import { emptyRunCounts } from "../store/store.ts";
import { TaskPool } from "./concurrency.ts";
import { CycleBatcher } from "./cycle-batcher.ts";
import { closedSurveyIds, planSurvey, type SurveyPlan } from "./diff.ts";
import { fetchSurveyChildren, type FetchFailure } from "./fetch-children.ts";
import { quarantineOfItem } from "./quarantine.ts";
import { settleSurvey } from "./survey-outcome.ts";
import type { Upstream } from "./upstream.ts";

/** What a cycle needs around it. */
export interface CycleContext {
  readonly store: SyncStore;
  readonly upstream: Upstream;
  readonly concurrency: number;
  readonly replicaId: string;
  readonly logger: Logger;
  /** Upstream HTTP requests made so far by this process (retries included): the cycle reports its share. */
  readonly requestCount: () => number;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** How a cycle ended. */
export interface CycleResult {
  readonly status: "succeeded" | "failed";
  readonly runId: number | undefined;
  readonly counts: RunCounts;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly error: string | null;
  readonly firstSequence: number | null;
  readonly lastSequence: number | null;
  readonly fetchFailures: readonly FetchFailure[];
}

/**
 * The store's survey states, kept in memory between cycles so a no-change cycle reads nothing
 * from the store. Only the leader writes, so its copy stays true while it leads; it is dropped
 * when leadership changes hands or a commit fails, and reloaded on the next cycle.
 */
export class SurveyIndex {
  #states: Map<number, StoredSurveyState> | undefined;

  async load(store: SyncStore): Promise<Map<number, StoredSurveyState>> {
    if (!this.#states) this.#states = new Map((await store.loadSurveyStates()).map((state) => [state.id, state]));
    return this.#states;
  }

  invalidate(): void {
    this.#states = undefined;
  }
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
 */
export async function runCycle(context: CycleContext, index: SurveyIndex, trigger: RunInput["trigger"], signal: AbortSignal): Promise<CycleResult> {
  const now = context.now ?? (() => new Date());
  const startedAt = now();
  const requestsBefore = context.requestCount();
  const run = { replicaId: context.replicaId, trigger, startedAt };
  const counts = emptyRunCounts() as { -readonly [K in keyof RunCounts]: RunCounts[K] };
  const fetchFailures: FetchFailure[] = [];
  // The store transaction of the cycle and its batch writer, opened with the first entry of the list.
  let open: { readonly transaction: CycleTransaction; readonly writer: CycleBatcher } | undefined;
  // Stops the remaining fetches when the store refuses a batch or the list fails: the cycle is lost anyway.
  const stopFetches = new AbortController();
  const fetchSignal = AbortSignal.any([signal, stopFetches.signal]);

  try {
    const states = await index.load(context.store);
    const listing = new ListingTally();
    const pool = new TaskPool(context.concurrency);
    const openCycle = async (): Promise<{ readonly transaction: CycleTransaction; readonly writer: CycleBatcher }> => {
      if (open === undefined) {
        const transaction = await context.store.beginCycle(startedAt);
        open = { transaction, writer: new CycleBatcher(transaction, counts) };
      }
      return open;
    };
    let storeError: Error | undefined;

    const fetchAndWrite = async (plan: SurveyPlan, batcher: CycleBatcher): Promise<void> => {
      const fetched = await fetchSurveyChildren(plan, context.upstream, fetchSignal);
      if (fetched.qualifications) counts.qualificationsFetched += 1;
      if (fetched.quotas) counts.quotasFetched += 1;
      fetchFailures.push(...fetched.failures);
      batcher.addQuarantine(fetched.quarantine);
      try {
        await batcher.addSurvey(settleSurvey(plan, fetched), plan.survey.SurveyId);
      } catch (error) {
        storeError ??= error instanceof Error ? error : new Error(String(error));
        stopFetches.abort(storeError);
      }
    };

    try {
      for await (const entry of context.upstream.liveSurveys(signal)) {
        const batcher = (await openCycle()).writer;
        if (entry.invalid) {
          batcher.addQuarantine([listing.quarantine(entry.invalid)]);
          continue;
        }
        const survey = entry.survey;
        if (!listing.list(survey.SurveyId)) continue;
        counts.listed += 1;
        const plan = planSurvey(survey, states.get(survey.SurveyId));
        if (plan === undefined) continue;
        if (plan.fetchQualifications || plan.fetchQuotas) await pool.run(() => fetchAndWrite(plan, batcher));
        else await batcher.addSurvey(settleSurvey(plan, {}), survey.SurveyId);
        if (storeError !== undefined || pool.failed) break;
      }
    } catch (error) {
      // The list (or a write) failed: let no fetch outlive the cycle before it is rolled back.
      stopFetches.abort(error);
      await pool.drain().catch(() => undefined);
      throw error;
    }
    await pool.drain();
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("cycle aborted");
    if (storeError !== undefined) throw storeError;
    listing.report(context.logger);

    const closedIds = closedSurveyIds(states, listing.listed, listing.present);
    const { transaction, writer } = await openCycle();
    writer.addClosed(closedIds);
    await writer.flush();
    counts.fetchFailures = fetchFailures.length;
    if (fetchFailures.length > 0) {
      context.logger.warn(
        { failures: fetchFailures.length, sample: fetchFailures.slice(0, 5).map((failure) => ({ surveyId: failure.surveyId, kind: failure.kind, error: errorMessage(failure.error) })) },
        "per-survey fetches failed; those surveys are refetched next cycle",
      );
    }

    const finishedAt = now();
    counts.upstreamRequests = context.requestCount() - requestsBefore;
    const outcome = await transaction.commit({ ...run, status: "succeeded", finishedAt, counts, error: null });
    open = undefined;
    for (const state of writer.states) states.set(state.id, state);
    for (const id of closedIds) {
      const state = states.get(id);
      if (state) states.set(id, { ...state, status: "closed" });
    }
    return { status: "succeeded", runId: outcome.runId, counts, startedAt, finishedAt, error: null, firstSequence: outcome.firstSequence, lastSequence: outcome.lastSequence, fetchFailures };
  } catch (error) {
    if (open) {
      // Written batches are discarded; the in-memory index was not touched, but drop it to be safe.
      await open.transaction.rollback().catch(() => undefined);
      index.invalidate();
    }
    const finishedAt = now();
    const message = signal.aborted ? `aborted: ${errorMessage(signal.reason)}` : errorMessage(error);
    const failedCounts = { ...emptyRunCounts(), listed: counts.listed, fetchFailures: fetchFailures.length, upstreamRequests: context.requestCount() - requestsBefore };
    let runId: number | undefined;
    try {
      runId = await context.store.recordRun({ ...run, status: "failed", finishedAt, counts: failedCounts, error: message });
    } catch (recordError) {
      context.logger.error({ err: recordError }, "could not record the failed run");
    }
    return { status: "failed", runId, counts: failedCounts, startedAt, finishedAt, error: message, firstSequence: null, lastSequence: null, fetchFailures };
  }
}

/**
 * What the cycle keeps of the live list as it streams past: the ids listed (to find the surveys
 * that closed, and to skip a repeated id), the ids of malformed items that still name their
 * survey (never closed for it), and what to log about both.
 */
class ListingTally {
  readonly listed = new Set<number>();
  readonly present = new Set<number>();
  #duplicates = 0;
  #quarantined = 0;

  /** Records a listed survey; false when its id was listed already (the first of each is kept). */
  list(id: number): boolean {
    if (this.listed.has(id)) {
      this.#duplicates += 1;
      return false;
    }
    this.listed.add(id);
    return true;
  }

  /** The quarantine entry of a malformed item, remembering the survey it names. */
  quarantine(invalid: InvalidItem): QuarantineInput {
    const item = quarantineOfItem(invalid);
    this.#quarantined += 1;
    if (item.surveyId !== null) this.present.add(item.surveyId);
    return item;
  }

  report(logger: Logger): void {
    if (this.#duplicates > 0) logger.warn({ duplicates: this.#duplicates }, "the live list repeated survey ids; the first of each was kept");
    if (this.#quarantined > 0) logger.warn({ quarantined: this.#quarantined, surveyIds: [...this.present].slice(0, 20) }, "malformed surveys quarantined");
  }
}

/** A one-line description of an error for run records and logs; never includes request headers. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
