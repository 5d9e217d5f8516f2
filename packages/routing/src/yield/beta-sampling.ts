/*
 * Gamma and Beta variates from a uniform source. Gamma by Marsaglia and Tsang (2000), "A simple
 * method for generating gamma variables", for shape >= 1; for shape < 1 by their boost
 * Gamma(a) = Gamma(a + 1) · U^(1/a). Beta(α, β) = X / (X + Y) with X ~ Gamma(α), Y ~ Gamma(β).
 * Everything is carried in logarithms: a prior of 10 pseudo-entries centred on 0.1 % has shape
 * 0.01, and U^100 underflows to 0 often enough to make X + Y = 0.
 */

/** A standard normal variate (Box–Muller; `1 - random()` keeps the logarithm finite). */
function standardNormal(random: () => number): number {
  const radius = Math.sqrt(-2 * Math.log(1 - random()));
  return radius * Math.cos(2 * Math.PI * random());
}

/** The logarithm of a Gamma(shape, 1) variate, shape >= 1 (Marsaglia–Tsang). */
function logGammaAtLeastOne(shape: number, random: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = standardNormal(random);
    const base = 1 + c * x;
    if (base <= 0) continue;
    const v = base * base * base;
    const u = 1 - random();
    const squared = x * x;
    // The squeeze accepts about 98 % of draws without a logarithm.
    if (u < 1 - 0.0331 * squared * squared || Math.log(u) < 0.5 * squared + d * (1 - v + Math.log(v)))
      return Math.log(d) + Math.log(v);
  }
}

function checkShape(name: string, value: number): void {
  if (!(value > 0) || !Number.isFinite(value))
    throw new RangeError(`${name} must be a positive finite number, got ${value}`);
}

/** The logarithm of a Gamma(shape, 1) variate, any shape > 0. */
function logGamma(shape: number, random: () => number): number {
  if (shape >= 1) return logGammaAtLeastOne(shape, random);
  return logGammaAtLeastOne(shape + 1, random) + Math.log(1 - random()) / shape;
}

/**
 * A Gamma(shape, 1) variate (mean and variance `shape`).
 *
 * @param random uniform in `[0, 1)`, such as `Math.random` or {@link createSeededRandom}.
 * @throws RangeError when `shape` is not a positive finite number.
 */
export function sampleGamma(shape: number, random: () => number): number {
  checkShape("shape", shape);
  return Math.exp(logGamma(shape, random));
}

/**
 * A Beta(alpha, beta) variate in `[0, 1]`: mean `α / (α + β)`, variance
 * `αβ / ((α + β)² (α + β + 1))`.
 *
 * @param random uniform in `[0, 1)`, such as `Math.random` or {@link createSeededRandom}.
 * @throws RangeError when a shape is not a positive finite number.
 * @example
 * ```ts
 * const draw = sampleBeta(3, 17, createSeededRandom(1)); // a conversion near 0.15
 * ```
 */
export function sampleBeta(alpha: number, beta: number, random: () => number): number {
  checkShape("alpha", alpha);
  checkShape("beta", beta);
  const logX = logGamma(alpha, random);
  const logY = logGamma(beta, random);
  // X / (X + Y) = 1 / (1 + e^(log Y - log X)), finite however small X and Y are.
  return 1 / (1 + Math.exp(logY - logX));
}
