import { describe, expect, it } from "vitest";
import { compileTargeting } from "./compiled-survey.ts";
import { packTargeting, unpackTargeting } from "./packed-targeting.ts";

const ages = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => String(from + index));
const q = (QualificationId: number, ...OptionCodes: string[]) => ({ QualificationId, OptionCodes });

describe("packTargeting", () => {
  it.each([
    ["nothing stored", null, null],
    ["qualifications only stored", [q(42, "18-24", "55+")], null],
    ["no qualifications", [], []],
    ["the common case", [q(42, "18", "19", "25-34"), q(43, "1"), q(45, "10001", "")], []],
    ["a qualification without codes, and a repeated one", [q(7), q(43, "1"), q(43, "2")], []],
    ["codes holding the compact form's separators", [q(1, "a\u0001b", "c\u0002d")], []],
    ["a code sent as a number", [{ QualificationId: 9, OptionCodes: [5 as unknown as string, "6"] }], []],
    [
      "runs of ages, beside codes that only look like a run",
      [
        q(42, ...ages(18, 65)),
        q(44, "7", "8", "10", "11", "12"),
        q(45, "007", "008", "009"),
        q(46, "9", "10", "11", "x"),
        q(47, "3", "2", "1"),
      ],
      [],
    ],
    ["a code holding the run separator", [q(1, "1\u00033")], []],
    [
      "a closed quota",
      [q(43, "1")],
      [
        { QuotaId: 3, Remaining: 0, Conditions: [{ QualificationId: 43, OptionCodes: ["1"] }] },
        { QuotaId: 4, Remaining: 5, Conditions: [] },
      ],
    ],
    [
      "a closed quota whose conditions cannot be read",
      [],
      [{ QuotaId: 3, Remaining: -1, Conditions: [{ Unknown: 1 }] }],
    ],
  ])("reads back what it packed: %s", (_label, qualifications, quotas) => {
    const compiled = compileTargeting(qualifications, quotas);
    const packed = packTargeting(compiled);
    expect(unpackTargeting(packed)).toEqual(compiled);
  });

  it("packs the common case without JSON's quotes and commas", () => {
    const packed = packTargeting(compileTargeting([q(42, "18", "19"), q(43, "1")], []));
    expect(packed).toBe("Q42\u000118\u000119\u000243\u00011");
  });

  it("keeps a run of consecutive whole numbers as its two ends, and only runs of three or more", () => {
    const packed = packTargeting(compileTargeting([q(42, ...ages(18, 65)), q(44, "1", "2", "5", "6", "7")], []));
    expect(packed).toBe("Q42\u000118\u000365\u000244\u00011\u00012\u00015\u00037");
  });
});
