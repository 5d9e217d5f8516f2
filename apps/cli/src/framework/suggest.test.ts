import { describe, expect, it } from "vitest";
import { closestMatch } from "./suggest.ts";

describe("closestMatch", () => {
  const commands = ["surveys list", "surveys show", "account show", "export"];

  it("suggests the command a typo was meant to be, transpositions included", () => {
    expect(closestMatch("surveys lst", commands)).toBe("surveys list");
    expect(closestMatch("sruveys list", commands)).toBe("surveys list");
    expect(closestMatch("exprot", commands)).toBe("export");
  });

  it("suggests nothing for a word that is not a near miss", () => {
    expect(closestMatch("surveys foo", commands)).toBeUndefined();
    expect(closestMatch("deploy", commands)).toBeUndefined();
  });
});
