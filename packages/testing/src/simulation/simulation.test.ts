import { describe, expect, it } from "vitest";
import { createFakeSupplierApi } from "../fake/create-fake-supplier-api.ts";
import { createMarketplaceSimulation } from "./create-marketplace-simulation.ts";
import { hiddenConversion } from "./hidden-conversion.ts";
import { oracleRouter, policyRouter, randomRouter } from "./routers.ts";
import { runSimulation } from "./run-simulation.ts";
import type { SimulatedOutcome, SimulationRouter } from "./types.ts";

const small = { surveys: 120, respondents: 1500 } as const;
const byPublishedIr = ({ survey }: { survey: { Cpi: string; Ir: string } }) =>
  (Number(survey.Cpi) * Number(survey.Ir)) / 100;

describe("createMarketplaceSimulation", () => {
  it("gives the same surveys, conversions and respondents for the same seed, and others for another", () => {
    const one = createMarketplaceSimulation({ seed: 4, ...small });
    const again = createMarketplaceSimulation({ seed: 4, ...small });
    const other = createMarketplaceSimulation({ seed: 5, ...small });
    expect(again.surveys).toEqual(one.surveys);
    expect(again.respondents).toEqual(one.respondents);
    expect(other.surveys.map((entry) => entry.trueConversion)).not.toEqual(
      one.surveys.map((entry) => entry.trueConversion),
    );
    expect(other.respondents[0]?.answers).not.toEqual(one.respondents[0]?.answers);
  });

  it("hides a true conversion that differs from Ir / 100 by a log-normal factor, within [0, 1]", () => {
    const { surveys } = createMarketplaceSimulation({ seed: 2, surveys: 2000, respondents: 1 });
    const factors = surveys
      .map(({ survey, trueConversion }) => trueConversion / (Number(survey.Ir) / 100))
      .filter((factor) => factor > 0);
    for (const { trueConversion } of surveys) expect(trueConversion).toBeGreaterThanOrEqual(0);
    for (const { trueConversion } of surveys) expect(trueConversion).toBeLessThanOrEqual(1);
    const sorted = [...factors].sort((left, right) => left - right);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    expect(median).toBeGreaterThan(0.85);
    expect(median).toBeLessThan(1.15);
    expect(sorted.filter((factor) => factor < 0.5).length).toBeGreaterThan(100);
    expect(sorted.filter((factor) => factor > 2).length).toBeGreaterThan(50);
    expect(hiddenConversion({ SurveyId: 9, Ir: "40" }, { seed: 1, spread: 0 })).toBe(0.4);
  });

  it("makes respondents who qualify for different subsets of the surveys", () => {
    const simulation = createMarketplaceSimulation({ seed: 3, ...small });
    const eligible = simulation.respondents.slice(0, 300).map((respondent) => simulation.eligibleSurveyIds(respondent));
    const counts = eligible.map((ids) => ids.length);
    expect(Math.max(...counts)).toBeLessThan(small.surveys / 2);
    expect(counts.filter((count) => count > 0).length).toBeGreaterThan(200);
    expect(new Set(eligible.map((ids) => ids.join(","))).size).toBeGreaterThan(150);
  });

  it("publishes exactly its surveys, qualifications and quotas through a fake supplier", () => {
    const simulation = createMarketplaceSimulation({ seed: 3, surveys: 30, respondents: 1 });
    const api = createFakeSupplierApi({ suppliers: [simulation.supplier({ supplierId: 1001, apiKey: "k" })] });
    expect(api.listSurveys(1001).map((survey) => survey.SurveyId)).toEqual(
      simulation.surveys.map((entry) => entry.survey.SurveyId),
    );
    const [first] = simulation.surveys;
    const record = api.getSurvey(first?.survey.SurveyId ?? 0);
    expect(record?.survey.Cpi).toBe(first?.survey.Cpi);
    expect(record?.qualifications.map((item) => item.OptionCodes)).toEqual(
      first?.qualifications.map((item) => item.OptionCodes),
    );
    expect(record?.quotas ?? []).toHaveLength(first?.quotas.length ?? -1);
  });

  it("refuses options out of range, naming them", () => {
    expect(() => createMarketplaceSimulation({ surveys: 0 })).toThrow(/surveys/);
    expect(() => createMarketplaceSimulation({ surveys: 5001 })).toThrow(/surveys/);
    expect(() => createMarketplaceSimulation({ respondents: 1.5 })).toThrow(/respondents/);
    expect(() => createMarketplaceSimulation({ overquotaShare: 2 })).toThrow(/overquotaShare/);
    expect(() => createMarketplaceSimulation({ conversionSpread: -1 })).toThrow(/conversionSpread/);
  });
});

describe("runSimulation", () => {
  it("gives the same result for the same seed and policy, whatever the concurrency", async () => {
    const simulation = createMarketplaceSimulation({ seed: 8, ...small });
    const first = await runSimulation(simulation, randomRouter(simulation));
    const again = await runSimulation(createMarketplaceSimulation({ seed: 8, ...small }), randomRouter(simulation), {
      concurrency: 7,
    });
    expect(again).toEqual(first);
    const other = await runSimulation(createMarketplaceSimulation({ seed: 9, ...small }), randomRouter(simulation));
    expect(other.revenue).not.toBe(first.revenue);
  });

  it("lets the oracle earn more per respondent than a random policy and than ranking by the published Ir", async () => {
    const simulation = createMarketplaceSimulation({ seed: 11, surveys: 200, respondents: 5000 });
    const oracle = await runSimulation(simulation, oracleRouter(simulation));
    const random = await runSimulation(simulation, randomRouter(simulation));
    const byIr = await runSimulation(simulation, policyRouter(simulation, byPublishedIr));
    expect(oracle.revenuePerRespondent).toBeGreaterThan(random.revenuePerRespondent * 1.3);
    expect(oracle.revenuePerRespondent).toBeGreaterThan(byIr.revenuePerRespondent);
    expect(byIr.revenuePerRespondent).toBeGreaterThan(random.revenuePerRespondent);
    expect(oracle.entries).toBe(random.entries);
  });

  it("with no spread, ranking by Cpi × Ir / 100 is the oracle", async () => {
    const simulation = createMarketplaceSimulation({ seed: 11, ...small, conversionSpread: 0 });
    expect(await runSimulation(simulation, policyRouter(simulation, byPublishedIr))).toEqual(
      await runSimulation(simulation, oracleRouter(simulation)),
    );
  });

  it("enters the first survey offered, reports the drawn outcome for its token, and counts what it reported", async () => {
    const simulation = createMarketplaceSimulation({ seed: 6, surveys: 60, respondents: 400 });
    const oracle = oracleRouter(simulation);
    const entered: number[] = [];
    const reported = new Map<string, SimulatedOutcome>();
    const recording: SimulationRouter = {
      match: (respondent) => oracle.match(respondent),
      enter(surveyId, respondent) {
        entered.push(surveyId);
        return Promise.resolve({ token: `t-${respondent.index}`, link: `https://example.test/${surveyId}` });
      },
      report(token, outcome) {
        expect(reported.has(token)).toBe(false);
        reported.set(token, outcome);
        return Promise.resolve();
      },
    };
    const result = await runSimulation(simulation, recording);
    const outcomes = [...reported.values()];
    expect(result.entries).toBe(entered.length);
    expect(reported.size).toBe(result.entries);
    expect(result.completes).toBe(outcomes.filter((outcome) => outcome === "complete").length);
    expect(result.overquotas).toBe(outcomes.filter((outcome) => outcome === "overquota").length);
    expect(result.completes + result.terminates + result.overquotas).toBe(result.entries);
    expect(result.unrouted + result.entries).toBe(400);
    expect(result.ineligibleEntries).toBe(0);
    const revenue = result.surveys.reduce((sum, survey) => sum + survey.revenue, 0);
    expect(result.revenue).toBeCloseTo(revenue, 6);
    expect(result.revenuePerRespondent).toBeCloseTo(result.revenue / 400, 9);
  });

  it("ends an entry into a survey the respondent does not qualify for in terminate", async () => {
    const simulation = createMarketplaceSimulation({ seed: 6, surveys: 60, respondents: 200 });
    const ids = simulation.surveys.map((entry) => entry.survey.SurveyId);
    const reported: SimulatedOutcome[] = [];
    const result = await runSimulation(simulation, {
      match: (respondent) => Promise.resolve(ids.find((id) => !simulation.eligibleSurveyIds(respondent).includes(id))),
      enter: (surveyId) => Promise.resolve({ token: String(surveyId), link: "" }),
      report: (_token, outcome) => {
        reported.push(outcome);
        return Promise.resolve();
      },
    });
    expect(result.ineligibleEntries).toBe(200);
    expect(new Set(reported)).toEqual(new Set(["terminate"]));
    expect(result.revenue).toBe(0);
  });
});
