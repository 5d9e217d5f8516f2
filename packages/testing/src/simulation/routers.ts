import { createSeededRandom, deriveSeed } from "../random.ts";
import type { MarketplaceSimulation, SimulatedSurvey, SimulationRouter } from "./types.ts";

/** How a policy values a survey for a respondent; the highest score is offered first. */
export type SurveyScore = (survey: SimulatedSurvey) => number;

/** An in-memory router's entry: a token per respondent, and the survey's URL as the link. */
function inMemoryEntry(surveyId: number, respondentId: string, simulation: MarketplaceSimulation) {
  return Promise.resolve({
    token: `sim-${respondentId}-${surveyId}`,
    link: simulation.survey(surveyId)?.survey.SurveyUrl ?? "",
  });
}

/**
 * A router that knows eligibility and ranks the eligible surveys by `score` (ties by
 * `SurveyId`), in memory: `enter` issues a token per respondent, `report` does nothing. The
 * baseline for a policy under test, or the policy itself when it needs no service.
 *
 * @example
 * ```ts
 * // Rank by what the upstream publishes, as a matcher that trusts Ir does.
 * const byIr = policyRouter(simulation, ({ survey }) => (Number(survey.Cpi) * Number(survey.Ir)) / 100);
 * ```
 */
export function policyRouter(simulation: MarketplaceSimulation, score: SurveyScore): SimulationRouter {
  const scores = new Map(simulation.surveys.map((entry) => [entry.survey.SurveyId, score(entry)]));
  return {
    match: (respondent) =>
      Promise.resolve(
        [...simulation.eligibleSurveyIds(respondent)].sort(
          (left, right) => (scores.get(right) ?? 0) - (scores.get(left) ?? 0) || left - right,
        ),
      ),
    enter: (surveyId, respondent) => inMemoryEntry(surveyId, respondent.id, simulation),
    report: () => Promise.resolve(),
  };
}

/**
 * The oracle: knows the hidden conversions and offers the eligible survey with the highest
 * expected revenue, `Cpi × trueConversion`. No policy that sees only what the upstream
 * publishes can expect more per respondent; compare a policy's `revenuePerRespondent` with it.
 */
export function oracleRouter(simulation: MarketplaceSimulation): SimulationRouter {
  return policyRouter(simulation, ({ survey, trueConversion }) => Number(survey.Cpi) * trueConversion);
}

/**
 * A router that offers one eligible survey chosen at random (seeded by `seed` and the
 * respondent): the floor any policy should beat.
 *
 * @param seed The seed of the choices; the simulation's by default.
 */
export function randomRouter(simulation: MarketplaceSimulation, seed = simulation.seed): SimulationRouter {
  return {
    match(respondent) {
      const eligible = simulation.eligibleSurveyIds(respondent);
      if (eligible.length === 0) return Promise.resolve(undefined);
      return Promise.resolve(createSeededRandom(deriveSeed(seed, respondent.index, 0x2a4d)).pick(eligible));
    },
    enter: (surveyId, respondent) => inMemoryEntry(surveyId, respondent.id, simulation),
    report: () => Promise.resolve(),
  };
}
