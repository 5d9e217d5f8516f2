import { describe, expect, it } from "vitest";
import { BoundedCache } from "./bounded-cache.ts";

const sized = () => new BoundedCache<string, { text: string }>(10, (value) => value.text.length);

describe("BoundedCache", () => {
  it("drops the earliest entries past the bound, and a touched entry last", () => {
    const cache = sized();
    cache.set("a", { text: "aaaa" });
    cache.set("b", { text: "bbbb" });
    cache.touch("a");
    cache.set("c", { text: "cccc" });
    expect([cache.get("a")?.text, cache.get("b"), cache.get("c")?.text]).toEqual(["aaaa", undefined, "cccc"]);
    expect([cache.size, cache.bytes]).toEqual([2, 8]);
  });

  it("holds no value larger than the whole bound, and keeps the others", () => {
    const cache = sized();
    cache.set("a", { text: "aaaa" });
    cache.set("big", { text: "x".repeat(11) });
    expect([cache.get("big"), cache.get("a")?.text, cache.bytes]).toEqual([undefined, "aaaa", 4]);
  });

  it("recounts a value that grew in place, evicting past the bound, and ignores a value no longer held", () => {
    const cache = sized();
    const page = { text: "aaaa" };
    cache.set("a", page);
    cache.set("b", { text: "bbbb" });
    page.text = "aaaaaaa";
    cache.recount("a", page);
    expect([cache.get("a"), cache.get("b")?.text, cache.bytes]).toEqual([undefined, "bbbb", 4]);
    cache.recount("b", { text: "a stranger, not the held value" });
    expect([cache.size, cache.bytes]).toEqual([1, 4]);
    page.text = "x".repeat(20);
    cache.set("a", { text: "aa" });
    cache.recount("a", page);
    expect(cache.bytes).toBe(6);
  });
});
