/**
 * A seeded source of uniform numbers in `[0, 1)` (mulberry32): the same seed always gives the
 * same sequence, so a replay or a test of yield ranking draws the same samples. Fast and small,
 * with ample quality for Thompson sampling; not for anything that must be unpredictable.
 *
 * @example
 * ```ts
 * const matcher = new SurveyMatcher({ yield: { random: createSeededRandom(42) } });
 * ```
 */
export function createSeededRandom(seed: number): () => number {
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
