import { RECONTACT_STUDY_TYPE_ID, type MarketplaceSimulation, type SimulationRouter } from "@sds/testing";

/**
 * The oracle restricted to what sds-sync may offer a simulated respondent: the simulation knows
 * nothing of re-contact studies, so its oracle sends respondents into them, while sds-sync keeps
 * everyone off a re-contact study's list out (the fake's lists name none of the simulated
 * respondents). Not the goal's reference (that is the simulation's oracle); shown beside it so
 * that the share of the gap no ranking can close is visible.
 */
export function reachableOracleRouter(simulation: MarketplaceSimulation): SimulationRouter {
  const value = new Map(
    simulation.surveys.map(({ survey, trueConversion }) => [survey.SurveyId, Number(survey.Cpi) * trueConversion]),
  );
  const recontact = new Set(
    simulation.surveys
      .filter(({ survey }) => survey.StudyTypeId === RECONTACT_STUDY_TYPE_ID)
      .map(({ survey }) => survey.SurveyId),
  );
  return {
    match: (respondent) =>
      Promise.resolve(
        simulation
          .eligibleSurveyIds(respondent)
          .filter((id) => !recontact.has(id))
          .sort((left, right) => (value.get(right) ?? 0) - (value.get(left) ?? 0) || left - right),
      ),
    enter: (surveyId, respondent) =>
      Promise.resolve({
        token: `reachable-${respondent.id}`,
        link: simulation.survey(surveyId)?.survey.SurveyUrl ?? "",
      }),
    report: () => Promise.resolve(),
  };
}

/** How many of the simulation's surveys are re-contact studies. */
export function recontactSurveyCount(simulation: MarketplaceSimulation): number {
  return simulation.surveys.filter(({ survey }) => survey.StudyTypeId === RECONTACT_STUDY_TYPE_ID).length;
}
