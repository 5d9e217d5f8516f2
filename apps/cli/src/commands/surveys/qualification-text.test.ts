import { describe, expect, it } from "vitest";
import { resolveOptions, summarizeOptions } from "./qualification-text.ts";

const gender = {
  name: "Gender",
  options: [
    { OptionId: 43001, OptionCode: 1, OptionText: "Male" },
    { OptionId: 43002, OptionCode: 2, OptionText: "Female" },
  ],
};

describe("resolveOptions", () => {
  it("matches option ids, and falls back to codes when the catalogue has no ids", () => {
    expect(resolveOptions({ OptionIds: [43002], OptionCodes: ["2"] }, gender)).toEqual([
      { OptionId: 43002, OptionCode: "2", OptionText: "Female" },
    ]);
    const withoutIds = {
      options: [
        { OptionCode: 1, OptionText: "Male" },
        { OptionCode: 2, OptionText: "Female" },
      ],
    };
    expect(resolveOptions({ OptionIds: [9], OptionCodes: ["1"] }, withoutIds)).toEqual([
      { OptionId: 9, OptionCode: "1", OptionText: "Male" },
    ]);
  });

  it("keeps unknown options and free codes as they are", () => {
    expect(resolveOptions({ OptionIds: [], OptionCodes: ["10001"] }, undefined)).toEqual([{ OptionCode: "10001" }]);
    expect(resolveOptions({ OptionIds: [77], OptionCodes: [] }, gender)).toEqual([{ OptionId: 77 }]);
  });
});

describe("summarizeOptions", () => {
  it("shows runs of whole numbers as a range and anything else as a list", () => {
    expect(summarizeOptions(["18", "19", "20", "21"].map((OptionText) => ({ OptionText })))).toBe("18–21");
    expect(summarizeOptions(["18", "20", "21"].map((OptionText) => ({ OptionText })))).toBe("18, 20, 21");
    expect(summarizeOptions([{ OptionText: "Female" }, { OptionCode: "3" }, { OptionId: 5 }])).toBe("Female, 3, 5");
  });
});
