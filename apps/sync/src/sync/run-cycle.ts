import type { Survey } from "@sds/schemas";
import type { Logger } from "pino";
import type { CycleTransaction, QuarantineInput, RunCounts, RunInput, StoredSurveyState, SyncStore } from "../store/store.ts";
import { emptyRunCounts } from "../store/store.ts";
import { drainWithConcurrency } from "./concurrency.ts";
import { CycleBatcher } from "./cycle-batcher.ts";
import { planCycle, type CyclePlan, type SurveyPlan } from "./diff.ts";
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
 * One sync cycle: one Get Surveys, a diff against the store, the per-survey fetches the diff
 * calls for (bounded by `concurrency`), all inside one store transaction: outcomes are written
 * in batches as the fetches complete, so memory stays bounded, and everything becomes visible at
 * once at the commit. A failure of the list or of the store fails the cycle (rolled back and
 * recorded as a failed run; the store keeps the last good data). An abort through `signal`
 * abandons the cycle without committing anything.
 */
export async function runCycle(context: CycleContext, index: SurveyIndex, trigger: RunInput["trigger"], signal: AbortSignal): Promise<CycleResult> {
  const now = context.now ?? (() => new Date());
  const startedAt = now();
  const requestsBefore = context.requestCount();
  const run = { replicaId: context.replicaId, trigger, startedAt };
  const counts = emptyRunCounts() as { -readonly [K in keyof RunCounts]: RunCounts[K] };
  const fetchFailures: FetchFailure[] = [];
  let transaction: CycleTransaction | undefined;
  // Stops the remaining fetches when the store refuses a batch: the cycle is lost anyway.
  const stopFetches = new AbortController();
  const fetchSignal = AbortSignal.any([signal, stopFetches.signal]);

  try {
    const { plan, quarantine } = await listAndPlan(context, index, signal, counts);
    transaction = await context.store.beginCycle(startedAt);
    const writer = new CycleBatcher(transaction, counts);
    writer.addQuarantine(quarantine);
    writer.addClosed(plan.closedIds);

    const pending: (SurveyPlan | undefined)[] = [];
    for (const surveyPlan of plan.surveys) {
      if (surveyPlan.fetchQualifications || surveyPlan.fetchQuotas) pending.push(surveyPlan);
      else await writer.addSurvey(settleSurvey(surveyPlan, {}), surveyPlan.survey.SurveyId);
    }
    let storeError: Error | undefined;
    await drainWithConcurrency(pending, context.concurrency, async (surveyPlan) => {
      const fetched = await fetchSurveyChildren(surveyPlan, context.upstream, fetchSignal);
      if (fetched.qualifications) counts.qualificationsFetched += 1;
      if (fetched.quotas) counts.quotasFetched += 1;
      fetchFailures.push(...fetched.failures);
      writer.addQuarantine(fetched.quarantine);
      try {
        await writer.addSurvey(settleSurvey(surveyPlan, fetched), surveyPlan.survey.SurveyId);
      } catch (error) {
        storeError ??= error instanceof Error ? error : new Error(String(error));
        stopFetches.abort(storeError);
      }
    });
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("cycle aborted");
    if (storeError !== undefined) throw storeError;
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
    transaction = undefined;
    const states = await index.load(context.store);
    for (const state of writer.states) states.set(state.id, state);
    for (const id of plan.closedIds) {
      const state = states.get(id);
      if (state) states.set(id, { ...state, status: "closed" });
    }
    return { status: "succeeded", runId: outcome.runId, counts, startedAt, finishedAt, error: null, firstSequence: outcome.firstSequence, lastSequence: outcome.lastSequence, fetchFailures };
  } catch (error) {
    if (transaction) {
      // Written batches are discarded; the in-memory index was not touched, but drop it to be safe.
      await transaction.rollback().catch(() => undefined);
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
 * Gets the live list and diffs it. Kept apart from the cycle so the list itself (the largest
 * object of a cycle) is unreachable once the plan exists.
 */
async function listAndPlan(context: CycleContext, index: SurveyIndex, signal: AbortSignal, counts: { listed: number }): Promise<{ plan: CyclePlan; quarantine: QuarantineInput[] }> {
  const listing = await context.upstream.listSurveys(signal);
  const { surveys, duplicates } = uniqueById(listing.surveys);
  if (duplicates > 0) context.logger.warn({ duplicates }, "the live list repeated survey ids; the first of each was kept");
  const quarantine = listing.invalid.map(quarantineOfItem);
  const present = new Set(quarantine.flatMap((item) => (item.surveyId === null ? [] : [item.surveyId])));
  if (quarantine.length > 0) context.logger.warn({ quarantined: quarantine.length, surveyIds: [...present].slice(0, 20) }, "malformed surveys quarantined");
  counts.listed = surveys.length;
  const states = await index.load(context.store);
  return { plan: planCycle(surveys, states, present), quarantine };
}

function uniqueById(surveys: readonly Survey[]): { surveys: Survey[]; duplicates: number } {
  const seen = new Set<number>();
  const unique: Survey[] = [];
  for (const survey of surveys) {
    if (seen.has(survey.SurveyId)) continue;
    seen.add(survey.SurveyId);
    unique.push(survey);
  }
  return { surveys: unique, duplicates: surveys.length - unique.length };
}

/** A one-line description of an error for run records and logs; never includes request headers. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
