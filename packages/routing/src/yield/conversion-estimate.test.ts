import { describe, expect, it } from "vitest";
import { conversionPosterior, conversionPrior, posteriorMean } from "./conversion-estimate.ts";

describe("conversionPrior", () => {
  it("centres on the marketplace's conversion when known, else on Ir / 100, weighing `strength` entries", () => {
    expect(conversionPrior({ ir: 40, marketplaceConversion: 0.12 })).toEqual({
      alpha: 1.2,
      beta: 8.8,
      mean: 0.12,
      strength: 10,
      source: "marketplace",
    });
    expect(conversionPrior({ ir: 25 }, 20)).toEqual({ alpha: 5, beta: 15, mean: 0.25, strength: 20, source: "ir" });
  });

  it("clamps the mean strictly inside (0, 1) so both shapes stay positive", () => {
    expect(conversionPrior({ ir: 0 }).mean).toBe(0.001);
    expect(conversionPrior({ ir: 100 }).mean).toBe(0.999);
    expect(conversionPrior({ ir: 30, marketplaceConversion: 0 })).toMatchObject({ mean: 0.001, source: "marketplace" });
    expect(conversionPrior({ ir: Number.NaN }).mean).toBe(0.001);
  });

  it("refuses a strength that is not positive", () => {
    expect(() => conversionPrior({ ir: 10 }, 0)).toThrow(/prior strength must be a positive finite number, got 0/);
  });
});

describe("conversionPosterior and posteriorMean", () => {
  it("adds completes to alpha and the other decided entries to beta", () => {
    const prior = conversionPrior({ ir: 50 });
    const posterior = conversionPosterior(prior, { decided: 30, completes: 3 });
    expect(posterior).toEqual({ alpha: 8, beta: 32 });
    expect(posteriorMean(posterior)).toBe(0.2);
  });

  it("is the prior without evidence, and moves toward the observed rate as evidence grows", () => {
    const prior = conversionPrior({ ir: 50 });
    expect(posteriorMean(conversionPosterior(prior, undefined))).toBe(0.5);
    expect(posteriorMean(conversionPosterior(prior, { decided: 10_000, completes: 1_000 }))).toBeCloseTo(0.1, 3);
  });
});
