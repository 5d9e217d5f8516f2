import { describe, expect, it } from "vitest";
import { createSeededRandom } from "../yield/seeded-random.ts";
import type { MatchableSurvey, MatchRequest } from "./match-types.ts";
import { SurveyMatcher } from "./survey-matcher.ts";

const NOW = Date.UTC(2026, 10, 23, 12);
const HOUR = 3_600_000;

function survey(SurveyId: number, Cpi: string, Ir: string): MatchableSurvey {
  return { SurveyId, Cpi, Ir, LanguageId: 1, DesktopAllowed: true, MobileAllowed: true, TabletAllowed: true };
}
const open = { qualifications: [], quotas: [] };
const byYield: MatchRequest = { answers: {}, order: "yield", now: NOW };

describe("SurveyMatcher, order yield", () => {
  it("ranks by Cpi × posterior mean without exploring: outcomes overturn what Ir promised", () => {
    const matcher = new SurveyMatcher({ yield: { explore: false } });
    matcher.upsert(survey(1, "2.00", "80"), open);
    matcher.upsert(survey(2, "2.00", "20"), open);
    expect(matcher.match({ answers: {} }).surveyIds).toEqual([1, 2]);
    expect(matcher.match(byYield).surveyIds).toEqual([1, 2]);
    // Survey 1: 1 complete in 40; survey 2: 12 in 40. Posterior means (8+1)/50 and (2+12)/50.
    matcher.setYieldEvidence(1, { decided: 40, completes: 1 });
    matcher.setYieldEvidence(2, { decided: 40, completes: 12 });
    expect(matcher.match(byYield).surveyIds).toEqual([2, 1]);
    // Earnings order is untouched by evidence.
    expect(matcher.match({ answers: {} }).surveyIds).toEqual([1, 2]);
  });

  it("centres the prior on the marketplace's conversion when the evidence carries one", () => {
    const matcher = new SurveyMatcher({ yield: { explore: false } });
    matcher.upsert(survey(1, "1.00", "90"), open);
    matcher.upsert(survey(2, "1.00", "30"), open);
    matcher.setYieldEvidence(1, { decided: 0, completes: 0, marketplaceConversion: 0.05 });
    expect(matcher.match(byYield).surveyIds).toEqual([2, 1]);
    expect(matcher.explain(1, byYield).yield).toEqual({
      estimate: 0.05,
      prior: { mean: 0.05, strength: 10, source: "marketplace" },
      evidence: { decided: 0, completes: 0 },
      score: 0.05,
    });
  });

  it("samples under Thompson sampling: reproducible with a seed, mostly the better survey, sometimes the unproven one", () => {
    const run = (seed: number) => {
      const matcher = new SurveyMatcher({ yield: { random: createSeededRandom(seed) } });
      matcher.upsert(survey(1, "1.00", "50"), open);
      matcher.upsert(survey(2, "1.00", "50"), open);
      matcher.setYieldEvidence(1, { decided: 200, completes: 60 });
      matcher.setYieldEvidence(2, { decided: 2, completes: 0 });
      return Array.from({ length: 2000 }, () => matcher.match({ ...byYield, limit: 1 }).surveyIds[0]);
    };
    const firsts = run(11);
    expect(run(11)).toEqual(firsts);
    const unproven = firsts.filter((id) => id === 2).length;
    // Survey 2's posterior is Beta(5, 7) (mean 0.42) against survey 1's Beta(65, 145) (mean 0.31):
    // it wins most draws, and survey 1 still wins a fair share.
    expect(unproven).toBeGreaterThan(1200);
    expect(unproven).toBeLessThan(1950);
  });

  it("holds a survey out of yield ranking during its cool-down, not out of earnings ranking, and lets it back after", () => {
    const matcher = new SurveyMatcher({ yield: { explore: false, cutoff: { cooldownMs: 6 * HOUR } } });
    matcher.upsert(survey(1, "3.00", "50"), open);
    matcher.upsert(survey(2, "1.00", "50"), open);
    matcher.setYieldEvidence(1, { decided: 20, completes: 0, cutoffReachedAt: NOW - HOUR });
    expect(matcher.match(byYield)).toEqual({ surveyIds: [2], eligible: 1 });
    expect(matcher.match({ answers: {} })).toEqual({ surveyIds: [1, 2], eligible: 2 });
    const explanation = matcher.explain(1, byYield);
    expect(explanation.eligible).toBe(false);
    expect(explanation.reasons).toEqual([
      {
        kind: "yield-cutoff",
        decided: 20,
        heldUntil: NOW + 5 * HOUR,
        message: "no complete in 20 decided entries: held out of yield ranking until 2026-11-23T17:00:00.000Z",
      },
    ]);
    expect(matcher.match({ ...byYield, now: NOW + 5 * HOUR }).surveyIds).toEqual([1, 2]);
  });

  it("keeps evidence set before the survey is held, and after it leaves", () => {
    const matcher = new SurveyMatcher({ yield: { explore: false } });
    matcher.setYieldEvidence(1, { decided: 20, completes: 0, cutoffReachedAt: NOW });
    matcher.upsert(survey(1, "3.00", "50"), open);
    expect(matcher.match(byYield).surveyIds).toEqual([]);
    matcher.remove(1);
    matcher.upsert(survey(2, "1.00", "50"), open);
    matcher.upsert(survey(1, "3.00", "50"), open);
    expect(matcher.match(byYield).surveyIds).toEqual([2]);
  });

  it("explains the draw of the latest match of the same request, and draws nothing for a survey whose Cpi could not make the results", () => {
    const matcher = new SurveyMatcher({ yield: { random: createSeededRandom(3) } });
    matcher.upsert(survey(1, "5.00", "60"), open);
    matcher.upsert(survey(2, "0.10", "60"), open);
    const request: MatchRequest = { ...byYield, limit: 1 };
    expect(matcher.match(request).surveyIds).toEqual([1]);
    const drawn = matcher.explain(1, request).yield;
    expect(drawn?.draw).toBeGreaterThan(0.02);
    expect(drawn?.score).toBeCloseTo(5 * (drawn?.draw ?? 0), 12);
    expect(drawn).toMatchObject({
      estimate: 0.6,
      prior: { mean: 0.6, strength: 10, source: "ir" },
      evidence: { decided: 0, completes: 0 },
    });
    expect(matcher.explain(2, request).yield).not.toHaveProperty("draw");
    // Another request object: no draw to report.
    expect(matcher.explain(1, { ...request }).yield).not.toHaveProperty("draw");
  });

  it("re-ranks a survey whose Cpi changed", () => {
    const matcher = new SurveyMatcher({ yield: { explore: false } });
    for (let id = 1; id <= 50; id++) matcher.upsert(survey(id, String(id), "50"), open);
    expect(matcher.match({ ...byYield, limit: 1 }).surveyIds).toEqual([50]);
    matcher.upsert(survey(3, "99.00", "50"), open);
    expect(matcher.match({ ...byYield, limit: 2 }).surveyIds).toEqual([3, 50]);
  });

  it("applies the respondent rules under yield as well", () => {
    const matcher = new SurveyMatcher({ yield: { explore: false } });
    matcher.upsert(survey(1, "3.00", "50"), open);
    matcher.upsert(survey(2, "1.00", "50"), open);
    matcher.setRecontact(2, ["r-1"]);
    const history = [{ surveyId: 1, enteredAt: NOW - HOUR, outcome: null }];
    expect(matcher.match({ ...byYield, respondent: { uid: "r-1", history } })).toEqual({ surveyIds: [2], eligible: 1 });
    expect(matcher.match(byYield)).toEqual({ surveyIds: [1], eligible: 1 });
  });

  it("refuses an unknown order, bad evidence and bad yield options", () => {
    const matcher = new SurveyMatcher();
    expect(() => matcher.match({ answers: {}, order: "random" as "yield" })).toThrow(
      'order must be "earnings" or "yield", got random',
    );
    expect(() => {
      matcher.setYieldEvidence(1, { decided: 2, completes: 3 });
    }).toThrow("survey 1: evidence.completes must be an integer from 0 to decided (2), got 3");
    expect(() => {
      matcher.setYieldEvidence(1, { decided: 2, completes: 0, marketplaceConversion: 12 });
    }).toThrow(/marketplaceConversion must be in \[0, 1\]/);
    expect(() => new SurveyMatcher({ yield: { priorStrength: -1 } })).toThrow(/prior strength/);
    expect(() => new SurveyMatcher({ yield: { cutoff: { cooldownMs: -1 } } })).toThrow(/cooldownMs/);
  });
});
