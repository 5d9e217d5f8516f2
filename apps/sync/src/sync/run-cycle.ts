import type { Survey } from "@sds/schemas";
import type { Logger } from "pino";
import type { CommitOutcome, RunCounts, RunInput, StoredSurveyState, SyncStore } from "../store/store.ts";
import { emptyRunCounts } from "../store/store.ts";
import { buildCommit } from "./build-commit.ts";
import { planCycle } from "./diff.ts";
import { fetchChildren, type FetchFailure } from "./fetch-children.ts";
import { quarantineOfItem } from "./quarantine.ts";
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
 * calls for (bounded by `concurrency`), then one atomic commit. A failure of the list or of the
 * commit fails the cycle (recorded as a failed run; the store keeps the last good data). An
 * abort through `signal` abandons the cycle without committing.
 */
export async function runCycle(context: CycleContext, index: SurveyIndex, trigger: RunInput["trigger"], signal: AbortSignal): Promise<CycleResult> {
  const now = context.now ?? (() => new Date());
  const startedAt = now();
  const requestsBefore = context.requestCount();
  const run = { replicaId: context.replicaId, trigger, startedAt };

  let fetchFailures: readonly FetchFailure[] = [];
  let partialCounts: Partial<RunCounts> = {};
  try {
    const listing = await context.upstream.listSurveys(signal);
    const { surveys, duplicates } = uniqueById(listing.surveys);
    if (duplicates > 0) context.logger.warn({ duplicates }, "the live list repeated survey ids; the first of each was kept");
    const quarantine = listing.invalid.map(quarantineOfItem);
    const present = new Set(quarantine.flatMap((item) => (item.surveyId === null ? [] : [item.surveyId])));
    if (quarantine.length > 0) context.logger.warn({ quarantined: quarantine.length, surveyIds: [...present].slice(0, 20) }, "malformed surveys quarantined");

    const states = await index.load(context.store);
    const plan = planCycle(surveys, states, present);
    const fetched = await fetchChildren(plan.surveys, context.upstream, context.concurrency, signal);
    fetchFailures = fetched.failures;
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("cycle aborted");
    if (fetched.failures.length > 0) {
      context.logger.warn(
        { failures: fetched.failures.length, sample: fetched.failures.slice(0, 5).map((failure) => ({ surveyId: failure.surveyId, kind: failure.kind, error: errorMessage(failure.error) })) },
        "per-survey fetches failed; those surveys are refetched next cycle",
      );
    }

    partialCounts = { listed: surveys.length };
    const finishedAt = now();
    const built = buildCommit(plan, fetched, {
      quarantine: [...quarantine, ...fetched.quarantine],
      run: { ...run, status: "succeeded", finishedAt, error: null },
      counts: { listed: surveys.length, upstreamRequests: context.requestCount() - requestsBefore },
      at: finishedAt,
    });
    let outcome: CommitOutcome;
    try {
      outcome = await context.store.commitCycle(built.commit);
    } catch (error) {
      index.invalidate();
      throw error;
    }
    for (const state of built.states) states.set(state.id, state);
    for (const id of plan.closedIds) {
      const state = states.get(id);
      if (state) states.set(id, { ...state, status: "closed" });
    }
    return { status: "succeeded", runId: outcome.runId, counts: built.commit.run.counts, startedAt, finishedAt, error: null, firstSequence: outcome.firstSequence, lastSequence: outcome.lastSequence, fetchFailures };
  } catch (error) {
    const finishedAt = now();
    const message = signal.aborted ? `aborted: ${errorMessage(signal.reason)}` : errorMessage(error);
    const counts = { ...emptyRunCounts(), ...partialCounts, fetchFailures: fetchFailures.length, upstreamRequests: context.requestCount() - requestsBefore };
    let runId: number | undefined;
    try {
      runId = await context.store.recordRun({ ...run, status: "failed", finishedAt, counts, error: message });
    } catch (recordError) {
      context.logger.error({ err: recordError }, "could not record the failed run");
    }
    return { status: "failed", runId, counts, startedAt, finishedAt, error: message, firstSequence: null, lastSequence: null, fetchFailures };
  }
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
