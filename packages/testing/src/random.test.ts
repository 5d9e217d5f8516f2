import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSeededRandom, deriveSeed } from "./index.ts";

describe("createSeededRandom", () => {
  it("gives the same sequence for the same seed and a different one for another seed", () => {
    const draw = (seed: number) => Array.from({ length: 20 }, createSeededRandom(seed).next);
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it("keeps int() within its bounds and reaches both ends", () => {
    const random = createSeededRandom(7);
    const seen = new Set<number>();
    for (let index = 0; index < 2000; index++) {
      const value = random.int(1, 6);
      expect(value).toBeGreaterThanOrEqual(1);
      expect(value).toBeLessThanOrEqual(6);
      seen.add(value);
    }
    expect([...seen].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("samples distinct elements and never more than exist", () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.integer(), { maxLength: 30 }), fc.nat(40), (seed, items, count) => {
        const unique = [...new Set(items)];
        const sample = createSeededRandom(seed).sample(unique, count);
        expect(sample.length).toBe(Math.min(count, unique.length));
        expect(new Set(sample).size).toBe(sample.length);
        for (const item of sample) expect(unique).toContain(item);
      }),
    );
  });

  it("refuses to pick from an empty array and to take a non-finite seed", () => {
    expect(() => createSeededRandom(1).pick([])).toThrow(RangeError);
    expect(() => createSeededRandom(Number.NaN)).toThrow(RangeError);
  });

  it("derives different seeds for different parts and the same for the same parts", () => {
    expect(deriveSeed(1, 2, 3)).toBe(deriveSeed(1, 2, 3));
    expect(deriveSeed(1, 2, 3)).not.toBe(deriveSeed(1, 3, 2));
    expect(deriveSeed(1, 100_001)).not.toBe(deriveSeed(1, 100_002));
  });
});
