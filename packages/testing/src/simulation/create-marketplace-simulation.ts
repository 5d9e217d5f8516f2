import { MAX_MATCH_LIMIT, SurveyMatcher } from "@sds/routing";
import { createSurveyFactory } from "../factories/survey.ts";
import { DEFAULT_CONVERSION_SPREAD, DEFAULT_OVERQUOTA_SHARE, hiddenConversion } from "./hidden-conversion.ts";
import { buildRespondent } from "./respondents.ts";
import type {
  MarketplaceSimulation,
  MarketplaceSimulationOptions,
  SimulatedRespondent,
  SimulatedSurvey,
} from "./types.ts";

const DEFAULT_SURVEYS = 200;
const DEFAULT_RESPONDENTS = 5000;
const MAX_RESPONDENTS = 1_000_000;

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
}

function checkShare(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0 || value > 1)
    throw new RangeError(`${name} must be from 0 to 1, got ${String(value)}`);
}

/**
 * Creates a seeded marketplace to measure routing policies on: surveys from the survey factory
 * (with qualifications and quotas) whose hidden true conversion differs from their `Ir`
 * (see {@link hiddenConversion}), and respondents whose answers qualify them for subsets of
 * them. Drive it with {@link runSimulation}; compare a policy with {@link oracleRouter}. The
 * same options give the same simulation.
 *
 * @throws RangeError on an option out of range, naming it.
 * @example
 * ```ts
 * const simulation = createMarketplaceSimulation({ seed: 7, surveys: 200, respondents: 5000 });
 * const best = await runSimulation(simulation, oracleRouter(simulation));
 * best.revenuePerRespondent; // the most any policy can expect
 * ```
 */
export function createMarketplaceSimulation(options: MarketplaceSimulationOptions = {}): MarketplaceSimulation {
  const seed = options.seed ?? 1;
  const surveyCount = options.surveys ?? DEFAULT_SURVEYS;
  const respondentCount = options.respondents ?? DEFAULT_RESPONDENTS;
  const spread = options.conversionSpread ?? DEFAULT_CONVERSION_SPREAD;
  const overquotaShare = options.overquotaShare ?? DEFAULT_OVERQUOTA_SHARE;
  checkInteger("seed", seed, 0, 2 ** 32 - 1);
  // Every eligible survey must fit in one match answer, whose limit is MAX_MATCH_LIMIT.
  checkInteger("surveys", surveyCount, 1, MAX_MATCH_LIMIT);
  checkInteger("respondents", respondentCount, 1, MAX_RESPONDENTS);
  if (options.firstSurveyId !== undefined)
    checkInteger("firstSurveyId", options.firstSurveyId, 1, Number.MAX_SAFE_INTEGER - surveyCount);
  if (!Number.isFinite(spread) || spread < 0)
    throw new RangeError(`conversionSpread must be a finite number ≥ 0, got ${String(spread)}`);
  checkShare("overquotaShare", overquotaShare);

  const factory = createSurveyFactory({
    seed,
    ...(options.firstSurveyId === undefined ? {} : { firstSurveyId: options.firstSurveyId }),
  });
  const surveys: SimulatedSurvey[] = factory.buildMany(surveyCount).map((survey) => {
    const qualifications = factory.qualifications(survey);
    return {
      survey,
      qualifications,
      quotas: factory.quotas(survey, qualifications),
      trueConversion: hiddenConversion(survey, { seed, spread }),
    };
  });
  const byId = new Map(surveys.map((entry) => [entry.survey.SurveyId, entry]));

  const matcher = new SurveyMatcher();
  for (const entry of surveys)
    matcher.upsert(entry.survey, { qualifications: entry.qualifications, quotas: entry.quotas });

  const zipCodes = [
    ...new Set(
      surveys.flatMap((entry) =>
        entry.qualifications.filter((record) => record.OptionIds.length === 0).flatMap((record) => record.OptionCodes),
      ),
    ),
  ].sort();
  const respondents = Array.from({ length: respondentCount }, (_, index) => buildRespondent(seed, index, zipCodes));

  return {
    seed,
    surveys,
    respondents,
    overquotaShare,
    survey: (surveyId) => byId.get(surveyId),
    eligibleSurveyIds: (respondent: SimulatedRespondent) =>
      matcher.match({
        answers: respondent.answers,
        languageId: respondent.languageId,
        device: respondent.device,
        limit: MAX_MATCH_LIMIT,
      }).surveyIds,
    supplier: (init) => ({
      ...init,
      surveys: surveys.map((entry) => ({
        survey: entry.survey,
        qualifications: entry.qualifications,
        quotas: entry.quotas,
        live: true,
      })),
      closedSurveys: 0,
    }),
  };
}
