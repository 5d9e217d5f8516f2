import { describe, expect, it } from "vitest";
import { sampleBeta, sampleGamma } from "./beta-sampling.ts";
import { createSeededRandom } from "./seeded-random.ts";

function moments(draw: () => number, count: number): { mean: number; variance: number } {
  let sum = 0;
  let squares = 0;
  for (let index = 0; index < count; index++) {
    const value = draw();
    sum += value;
    squares += value * value;
  }
  const mean = sum / count;
  return { mean, variance: (squares - count * mean * mean) / (count - 1) };
}

/** Beta's mean, variance and excess kurtosis, for the standard errors of the sample moments. */
function betaMoments(alpha: number, beta: number): { mean: number; variance: number; excessKurtosis: number } {
  const total = alpha + beta;
  const difference = alpha - beta;
  return {
    mean: alpha / total,
    variance: (alpha * beta) / (total * total * (total + 1)),
    excessKurtosis:
      (6 * (difference * difference * (total + 1) - alpha * beta * (total + 2))) /
      (alpha * beta * (total + 2) * (total + 3)),
  };
}

describe("sampleBeta", () => {
  // Shapes below and above 1 (the boost and the plain Marsaglia–Tsang path), a prior centred on
  // 0.1 % (shape 0.01), and a posterior after 1,000 entries.
  it.each([
    [0.5, 0.5],
    [1, 1],
    [2, 5],
    [0.01, 9.99],
    [3.5, 0.4],
    [30, 970],
  ])(
    "draws Beta(%s, %s) with the right mean and variance (100,000 draws, fixed seed, within 4 standard errors)",
    (alpha, beta) => {
      const count = 100_000;
      const random = createSeededRandom(20261123);
      const sample = moments(() => sampleBeta(alpha, beta, random), count);
      const expected = betaMoments(alpha, beta);
      expect(Math.abs(sample.mean - expected.mean)).toBeLessThan(4 * Math.sqrt(expected.variance / count));
      // Var(s²) ≈ σ⁴ (excess kurtosis + 2) / n.
      const varianceError = expected.variance * Math.sqrt((expected.excessKurtosis + 2) / count);
      expect(Math.abs(sample.variance - expected.variance)).toBeLessThan(4 * varianceError);
    },
  );

  it("stays inside [0, 1] and finite for tiny shapes, where the gamma draws underflow", () => {
    const random = createSeededRandom(7);
    for (let index = 0; index < 20_000; index++) {
      const value = sampleBeta(0.001, 0.002, random);
      expect(value >= 0 && value <= 1).toBe(true);
    }
  });

  it("repeats the same draws for the same seed", () => {
    const first = createSeededRandom(99);
    const second = createSeededRandom(99);
    const draws = (random: () => number) => Array.from({ length: 50 }, () => sampleBeta(2.5, 7.5, random));
    expect(draws(first)).toEqual(draws(second));
  });

  it("refuses shapes that are not positive and finite", () => {
    const random = createSeededRandom(1);
    expect(() => sampleBeta(0, 1, random)).toThrow(/alpha must be a positive finite number, got 0/);
    expect(() => sampleBeta(1, Number.NaN, random)).toThrow(/beta must be a positive finite number/);
    expect(() => sampleGamma(Number.POSITIVE_INFINITY, random)).toThrow(/shape/);
  });
});

describe("sampleGamma", () => {
  it.each([0.3, 1, 4.5, 50])(
    "draws Gamma(%s) with mean and variance equal to the shape (100,000 draws, fixed seed)",
    (shape) => {
      const count = 100_000;
      const random = createSeededRandom(5);
      const sample = moments(() => sampleGamma(shape, random), count);
      expect(Math.abs(sample.mean - shape)).toBeLessThan(4 * Math.sqrt(shape / count));
      // Gamma's excess kurtosis is 6 / shape.
      expect(Math.abs(sample.variance - shape)).toBeLessThan(4 * shape * Math.sqrt((6 / shape + 2) / count));
    },
  );
});
