import { describe, expect, it } from "vitest";
import { requiredBump } from "./required-bump.ts";

const breaking = { breaking: ["`connect` changed"], additions: [] };
const additions = { breaking: [], additions: ["`Options` gained members"] };
const unchanged = { breaking: [], additions: [] };

describe("requiredBump", () => {
  it("asks a major for a removal or change from 1.0.0 on", () => {
    expect(requiredBump(breaking, "1.0.0")).toBe("major");
    expect(requiredBump(breaking, "2.3.4")).toBe("major");
  });

  it("asks a minor for a removal or change below 1.0.0, where the minor is the caret range's breaking line", () => {
    expect(requiredBump(breaking, "0.1.0")).toBe("minor");
    expect(requiredBump(breaking, "0.9.12")).toBe("minor");
  });

  it("asks a minor for an addition, before and after 1.0.0", () => {
    expect(requiredBump(additions, "0.1.0")).toBe("minor");
    expect(requiredBump(additions, "1.4.0")).toBe("minor");
  });

  it("asks nothing when the surface is unchanged", () => {
    expect(requiredBump(unchanged, "0.1.0")).toBe("none");
    expect(requiredBump(unchanged, "1.0.0")).toBe("none");
  });
});
