import { describe, expect, it } from "vitest";
import { RecordCache } from "./record-cache.ts";

/** A record of exactly `length` characters. */
const record = (id: number, length: number) => {
  const bare = `{"SurveyId":${id},"Name":""}`;
  return `{"SurveyId":${id},"Name":"${"x".repeat(length - bare.length)}"}`;
};

describe("RecordCache", () => {
  it("never holds more text than its bound, dropping the least recently used first", () => {
    const cache = new RecordCache(1000);
    for (let id = 1; id <= 4; id++) cache.set(id, record(id, 300));
    expect(cache.bytes).toBeLessThanOrEqual(1000);
    expect([1, 2, 3, 4].map((id) => cache.get(id) !== undefined)).toEqual([false, true, true, true]);
    // 2 was read last but one: using it makes 3 the least recently used.
    cache.get(2);
    cache.set(5, record(5, 300));
    expect([2, 3, 4, 5].map((id) => cache.get(id) !== undefined)).toEqual([true, false, true, true]);
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBe(900);
  });

  it("replaces a record in place, forgets one on delete, and refuses one larger than the whole bound", () => {
    const cache = new RecordCache(1000);
    cache.set(1, record(1, 300));
    cache.set(1, record(1, 400));
    expect(cache.bytes).toBe(400);
    expect(cache.get(1)).toBe(record(1, 400));
    cache.set(2, record(2, 1001));
    expect(cache.get(2)).toBeUndefined();
    expect(cache.get(1)).toBe(record(1, 400));
    cache.delete(1);
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });
});
