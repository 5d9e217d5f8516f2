import { describe, expect, it } from "vitest";
import { createSeededRandom } from "./seeded-random.ts";

describe("createSeededRandom", () => {
  it("gives the same sequence for the same seed and another for another seed", () => {
    const take = (seed: number) => {
      const random = createSeededRandom(seed);
      return Array.from({ length: 20 }, random);
    };
    expect(take(1)).toEqual(take(1));
    expect(take(1)).not.toEqual(take(2));
  });

  it("draws uniformly in [0, 1): every tenth of the range gets its share of 100,000 draws", () => {
    const random = createSeededRandom(123);
    const bins = new Array<number>(10).fill(0);
    for (let index = 0; index < 100_000; index++) {
      const value = random();
      expect(value >= 0 && value < 1).toBe(true);
      bins[Math.floor(value * 10)] = (bins[Math.floor(value * 10)] ?? 0) + 1;
    }
    // 10,000 expected per bin, standard deviation about 95.
    for (const count of bins) expect(Math.abs(count - 10_000)).toBeLessThan(400);
  });
});
