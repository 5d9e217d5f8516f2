import { createSeededRandom, deriveSeed } from "../random.ts";
import { drawOutcome } from "./hidden-conversion.ts";
import type {
  MarketplaceSimulation,
  RunSimulationOptions,
  SimulatedOutcome,
  SimulatedRespondent,
  SimulatedSurveyResult,
  SimulationResult,
  SimulationRouter,
} from "./types.ts";

/** What one respondent's visit came to. */
type Visit =
  | { readonly kind: "unrouted" }
  | {
      readonly kind: "entered";
      readonly surveyId: number;
      readonly outcome: SimulatedOutcome;
      readonly eligible: boolean;
      readonly cpi: number;
    };

function firstChoice(answer: readonly number[] | number | undefined): number | undefined {
  return typeof answer === "number" ? answer : answer?.[0];
}

/** One respondent: ask the router, enter its first choice, draw the outcome, report it. */
async function visit(
  simulation: MarketplaceSimulation,
  router: SimulationRouter,
  respondent: SimulatedRespondent,
): Promise<Visit> {
  const surveyId = firstChoice(await router.match(respondent));
  if (surveyId === undefined) return { kind: "unrouted" };
  const { token } = await router.enter(surveyId, respondent);
  const entry = simulation.survey(surveyId);
  const eligible = entry !== undefined && simulation.eligibleSurveyIds(respondent).includes(surveyId);
  // Drawn from the seed and the respondent alone, so neither the order of visits nor the router's choice moves another draw.
  const random = createSeededRandom(deriveSeed(simulation.seed, respondent.index, 0x0c7e));
  const outcome = eligible ? drawOutcome(entry.trueConversion, simulation.overquotaShare, random.next) : "terminate";
  await router.report(token, outcome);
  return { kind: "entered", surveyId, outcome, eligible, cpi: entry === undefined ? 0 : Number(entry.survey.Cpi) };
}

function summarise(respondents: number, visits: readonly Visit[]): SimulationResult {
  const bySurvey = new Map<number, { entries: number; completes: number; revenue: number }>();
  let entries = 0;
  let ineligibleEntries = 0;
  const counts: Record<SimulatedOutcome, number> = { complete: 0, terminate: 0, overquota: 0 };
  for (const item of visits) {
    if (item.kind === "unrouted") continue;
    entries += 1;
    if (!item.eligible) ineligibleEntries += 1;
    counts[item.outcome] += 1;
    const survey = bySurvey.get(item.surveyId) ?? { entries: 0, completes: 0, revenue: 0 };
    survey.entries += 1;
    if (item.outcome === "complete") {
      survey.completes += 1;
      survey.revenue += item.cpi;
    }
    bySurvey.set(item.surveyId, survey);
  }
  const surveys: SimulatedSurveyResult[] = [...bySurvey]
    .sort(([left], [right]) => left - right)
    .map(([surveyId, survey]) => ({
      surveyId,
      entries: survey.entries,
      completes: survey.completes,
      revenue: roundCents(survey.revenue),
    }));
  const revenue = roundCents(surveys.reduce((sum, survey) => sum + survey.revenue, 0));
  return {
    respondents,
    entries,
    unrouted: respondents - entries,
    ineligibleEntries,
    completes: counts.complete,
    terminates: counts.terminate,
    overquotas: counts.overquota,
    revenue,
    revenuePerRespondent: revenue / respondents,
    surveys,
  };
}

/** Sums of prices kept to the cent, so that the same entries give the same figure whatever order they were added in. */
function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * Runs a simulation through a router: every respondent in turn is matched (`router.match`), sent
 * into the first survey offered (`router.enter`), and given an outcome drawn from that survey's
 * hidden conversion (`terminate` if they do not qualify for it), which is reported
 * (`router.report`). Resolves to the totals, chiefly `revenuePerRespondent` (the `Cpi` of the
 * completes over all respondents). The same simulation and the same choices give the same
 * result, whatever `concurrency`.
 *
 * @throws RangeError on a `concurrency` that is not a positive integer; rejects with what a router method throws.
 * @example
 * ```ts
 * const simulation = createMarketplaceSimulation({ seed: 7 });
 * const oracle = await runSimulation(simulation, oracleRouter(simulation));
 * const random = await runSimulation(simulation, randomRouter(simulation));
 * oracle.revenuePerRespondent > random.revenuePerRespondent; // true
 * ```
 */
export async function runSimulation(
  simulation: MarketplaceSimulation,
  router: SimulationRouter,
  options: RunSimulationOptions = {},
): Promise<SimulationResult> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${String(concurrency)}`);
  const { respondents } = simulation;
  const visits = new Array<Visit>(respondents.length);
  let next = 0;
  const worker = async () => {
    while (next < respondents.length) {
      options.signal?.throwIfAborted();
      const index = next++;
      visits[index] = await visit(simulation, router, respondents[index] as SimulatedRespondent);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, respondents.length) }, worker));
  return summarise(respondents.length, visits);
}
