import {
  DEFAULT_PRIOR_STRENGTH,
  conversionPosterior,
  conversionPrior,
  createSeededRandom,
  isHeldOut,
  posteriorMean,
  recordOutcome,
  sampleBeta,
  type YieldCutoff,
  type YieldEvidence,
} from "@sds/routing";
import { OutcomeQueue } from "./outcome-queue.ts";
import type { RecordedEntry, ReplayHistory, SurveyFacts } from "./replay-history.ts";

/** A ranking policy a replay evaluates: `POST /v1/match`'s `order`. */
export type ReplayPolicy = "earnings" | "yield";

/** Settings of {@link replayPolicy}; those of yield mirror the service's (SYNC_YIELD_*). */
export interface ReplaySettings {
  /** Seed of yield's draws: the same seed gives the same replay. @default 1 */
  readonly seed?: number;
  /** Yield's prior strength. @default 10 */
  readonly priorStrength?: number;
  /** Yield's cut-off. @default 20 entries, 6 hours */
  readonly cutoff?: YieldCutoff;
  /** Yield: draw from the posterior (true, as the service does by default) or rank by its mean. @default true */
  readonly explore?: boolean;
}

/** What a policy came to on the entries it was evaluated on. */
export interface PolicyReplay {
  readonly policy: ReplayPolicy | "recorded";
  /** Decided entries the policy was evaluated on. */
  readonly evaluated: number;
  /** Entries whose survey was the policy's first choice: the only ones that count. */
  readonly matched: number;
  readonly completes: number;
  /** Completes per matched entry. */
  readonly conversion: number;
  /** Sum of the `Cpi` of the matched completes. */
  readonly earnings: number;
  /** Earnings per matched entry: the figure policies are compared on. */
  readonly earningsPerEntry: number;
}

const HOUR_MS = 3_600_000;

/** The surveys that received entries in each hour, with their `Cpi` then (the last one recorded): the candidates of that hour's entries. */
export function candidatesByHour(entries: readonly RecordedEntry[]): Map<number, Map<number, number>> {
  const hours = new Map<number, Map<number, number>>();
  for (const entry of entries) {
    const hour = Math.floor(entry.issuedAt / HOUR_MS);
    let surveys = hours.get(hour);
    if (surveys === undefined) hours.set(hour, (surveys = new Map<number, number>()));
    surveys.set(entry.surveyId, entry.cpi);
  }
  // Survey id order: yield's draws then come in the same order on every run.
  for (const [hour, surveys] of hours)
    hours.set(hour, new Map<number, number>([...surveys].sort(([left], [right]) => left - right)));
  return hours;
}

function summary(
  policy: PolicyReplay["policy"],
  evaluated: number,
  matched: number,
  completes: number,
  earnings: number,
): PolicyReplay {
  const rounded = Math.round(earnings * 100) / 100;
  return {
    policy,
    evaluated,
    matched,
    completes,
    conversion: matched === 0 ? 0 : completes / matched,
    earnings: rounded,
    earningsPerEntry: matched === 0 ? 0 : rounded / matched,
  };
}

/** What the recorded entries came to as they were routed: every decided entry counts. */
export function recordedPolicy(history: ReplayHistory): PolicyReplay {
  const decided = history.entries.filter((entry) => entry.outcome !== null);
  const completes = decided.filter((entry) => entry.outcome === "complete");
  return summary(
    "recorded",
    decided.length,
    decided.length,
    completes.length,
    completes.reduce((sum, entry) => sum + entry.cpi, 0),
  );
}

/**
 * Replays the recorded entries in issue order against a policy (the replay method of Li, Chu,
 * Langford and Wang, WSDM 2011, "Unbiased offline evaluation of contextual-bandit-based news
 * article recommendation algorithms"): for each decided entry the policy ranks the surveys that
 * were live for it, approximated by the surveys that received entries in the same hour (no record
 * says which surveys the respondent qualified for), and the entry counts only when the policy's
 * first choice is the survey recorded. A learning policy (yield) learns only from the entries it
 * matched, each outcome once its recorded time has passed, so it sees what it would have seen
 * had it routed that traffic; it starts from nothing.
 */
export function replayPolicy(
  history: ReplayHistory,
  policy: ReplayPolicy,
  settings: ReplaySettings = {},
): PolicyReplay {
  const hours = candidatesByHour(history.entries);
  const random = createSeededRandom(settings.seed ?? 1);
  const strength = settings.priorStrength ?? DEFAULT_PRIOR_STRENGTH;
  const explore = settings.explore ?? true;
  const evidence = new Map<number, YieldEvidence>();
  const due = new OutcomeQueue();
  const facts = (surveyId: number): SurveyFacts => history.surveys.get(surveyId) ?? { ir: Number.NaN };
  const score = (surveyId: number, cpi: number): number => {
    const { ir, marketplaceConversion } = facts(surveyId);
    if (policy === "earnings") return (cpi * (Number.isFinite(ir) ? ir : 0)) / 100;
    const posterior = conversionPosterior(
      conversionPrior({ ir, marketplaceConversion }, strength),
      evidence.get(surveyId),
    );
    return cpi * (explore ? sampleBeta(posterior.alpha, posterior.beta, random) : posteriorMean(posterior));
  };
  let evaluated = 0;
  let matched = 0;
  let completes = 0;
  let earnings = 0;
  for (const entry of history.entries) {
    if (entry.outcome === null || entry.outcomeAt === null) continue;
    for (const outcome of due.takeUntil(entry.issuedAt)) {
      evidence.set(
        outcome.surveyId,
        recordOutcome(
          evidence.get(outcome.surveyId),
          outcome.complete ? "complete" : "failure",
          outcome.at,
          settings.cutoff,
        ),
      );
    }
    evaluated += 1;
    let best: number | undefined;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const [surveyId, cpi] of hours.get(Math.floor(entry.issuedAt / HOUR_MS)) ?? []) {
      if (policy === "yield" && isHeldOut(evidence.get(surveyId), entry.issuedAt, settings.cutoff)) continue;
      const value = score(surveyId, cpi);
      // Ties go to the lower SurveyId, as the matcher's do (the candidates come in id order).
      if (value > bestScore) [best, bestScore] = [surveyId, value];
    }
    if (best !== entry.surveyId) continue;
    matched += 1;
    const complete = entry.outcome === "complete";
    if (complete) {
      completes += 1;
      earnings += entry.cpi;
    }
    if (policy === "yield") due.add({ surveyId: entry.surveyId, complete, at: entry.outcomeAt });
  }
  return summary(policy, evaluated, matched, completes, earnings);
}
