import { describe, expect, it } from "vitest";
import { qualificationsCell, quotasCell } from "./detail-cells.ts";

const qualification = (QualificationId: number, OptionCodes: string[]) => ({
  SurveyId: 1,
  LastUpdatedOnUTC: "2026-01-01T00:00:00Z",
  QualificationId,
  QualificationTypeId: 1,
  OptionIds: OptionCodes.map((_, index) => index + 1),
  OptionCodes,
});

describe("qualificationsCell", () => {
  it("writes each qualification as id=options, ages as a range, none as empty", () => {
    const ages = Array.from({ length: 47 }, (_, index) => String(18 + index));
    expect(qualificationsCell([qualification(42, ages), qualification(43, ["1", "2"])])).toBe("42=18–64; 43=1, 2");
    expect(qualificationsCell([])).toBe("");
  });
});

describe("quotasCell", () => {
  it("writes each quota as id, name and counts with its conditions, | between quotas", () => {
    const quotas = [
      {
        QuotaId: 11,
        Name: "Female",
        Completes: 12,
        TargetCompletes: 50,
        Conditions: [{ QualificationId: 43, OptionIds: [2], OptionCodes: ["2"] }],
      },
      { QuotaId: 12, Conditions: [] },
    ];
    expect(quotasCell(quotas)).toBe("11 Female 12/50: 43=2 | 12: all respondents");
  });

  it("is empty when the quotas were not fetched or there are none", () => {
    expect(quotasCell(null)).toBe("");
    expect(quotasCell([])).toBe("");
  });
});
