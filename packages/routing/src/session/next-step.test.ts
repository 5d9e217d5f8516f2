import { describe, expect, it } from "vitest";
import type { MatchQualification } from "../matching/match-types.ts";
import { cpiCents } from "./cents.ts";
import { nextSessionStep } from "./next-step.ts";
import { SessionInventory, type SessionSurvey } from "./session-inventory.ts";
import type { SessionQuestion, SessionSituation } from "./session-types.ts";
import { bestOrder } from "./survey-order.ts";

function survey(SurveyId: number, Cpi: string, Ir: string, Loi = "10"): SessionSurvey {
  return { SurveyId, Cpi, Ir, Loi, LanguageId: 3, DesktopAllowed: true, MobileAllowed: true, TabletAllowed: true };
}

function inventoryOf(...surveys: [SessionSurvey, MatchQualification[]][]): SessionInventory {
  const inventory = new SessionInventory();
  for (const [record, qualifications] of surveys) inventory.upsert(record, { qualifications, quotas: [] });
  return inventory;
}

const gender: SessionQuestion = { qualificationId: 43, type: "single", optionCodes: ["1", "2"] };
const region: SessionQuestion = { qualificationId: 96, type: "single", optionCodes: ["1", "2", "3", "4"] };

function situation(overrides: Partial<SessionSituation> = {}): SessionSituation {
  return {
    answers: new Map(),
    languageId: 3,
    attempts: [],
    excluded: new Set(),
    askable: new Map([
      [43, gender],
      [96, region],
    ]),
    ...overrides,
  };
}

describe("the session's money", () => {
  it("reads a Cpi as integer cents and keeps a non-finite one out of every sum", () => {
    expect(cpiCents("2.50")).toBe(250);
    expect(cpiCents("0.125")).toBe(13);
    expect(cpiCents("1e309")).toBeUndefined();
    expect(cpiCents("NaN")).toBeUndefined();
    expect(cpiCents("-1")).toBeUndefined();
    const inventory = inventoryOf([survey(1, "Infinity", "50"), []], [survey(2, "1.00", "50"), []]);
    expect(inventory.size).toBe(1);
    const decision = nextSessionStep(inventory, situation());
    expect(decision).toMatchObject({ kind: "survey", surveys: [2] });
  });
});

describe("the session's order", () => {
  it("offers a well-paying survey before a cheap one that would complete and end the session", () => {
    // Alone, the cheap survey earns more per offer (0.9 × 100 > 0.3 × 250); in a session of two
    // attempts, the dear one first is worth 75 + 0.7 × 90 = 138 against 90 + 0.1 × 75 = 97.5.
    const order = bestOrder(
      [
        { surveyId: 1, value: 90, goOn: 0.1, minutes: 5 },
        { surveyId: 2, value: 75, goOn: 0.7, minutes: 5 },
      ],
      2,
    );
    expect(order.surveyIds).toEqual([2, 1]);
    expect(order.cents).toBeCloseTo(138);
    expect(
      bestOrder(
        [
          { surveyId: 1, value: 90, goOn: 0.1, minutes: 5 },
          { surveyId: 2, value: 75, goOn: 0.7, minutes: 5 },
        ],
        1,
      ).surveyIds,
    ).toEqual([1]);
  });
});

describe("the session's next step", () => {
  const dear = survey(10, "5.00", "60");
  const cheap = survey(11, "0.50", "60");

  it("asks the question a dear survey needs, when the answer pays more than its time", () => {
    const inventory = inventoryOf([dear, [{ QualificationId: 43, OptionCodes: ["2"] }]], [cheap, []]);
    const decision = nextSessionStep(inventory, situation());
    expect(decision.kind).toBe("question");
    expect(decision).toMatchObject({ qualificationId: 43 });
  });

  it("never asks a question no open survey needs, nor one already answered", () => {
    const inventory = inventoryOf([dear, [{ QualificationId: 43, OptionCodes: ["2"] }]], [cheap, []]);
    const answered = nextSessionStep(inventory, situation({ answers: new Map([["43", ["2"]]]) }));
    expect(answered).toMatchObject({ kind: "survey", surveys: [10, 11] });
    const none = nextSessionStep(inventoryOf([cheap, []]), situation());
    expect(none).toMatchObject({ kind: "survey", surveys: [11] });
    if (none.kind === "survey") expect(none.explanation.questions).toEqual([]);
  });

  it("does not ask when the answer is worth less than the question's time", () => {
    // Both surveys pay alike; the one behind the question adds next to nothing over three attempts.
    const inventory = inventoryOf(
      [survey(20, "1.00", "90"), []],
      [survey(21, "1.00", "90"), []],
      [survey(22, "1.00", "90"), []],
      [survey(23, "1.01", "90"), [{ QualificationId: 96, OptionCodes: ["1"] }]],
    );
    const decision = nextSessionStep(inventory, situation(), { questionSeconds: 8 });
    expect(decision.kind).toBe("survey");
  });

  it("waits for the return, then re-routes after a terminate to a survey not tried", () => {
    const inventory = inventoryOf([dear, []], [cheap, []]);
    expect(nextSessionStep(inventory, situation({ attempts: [{ surveyId: 10 }] }))).toEqual({
      kind: "wait",
      surveyId: 10,
    });
    const after = nextSessionStep(inventory, situation({ attempts: [{ surveyId: 10, returned: "terminate" }] }));
    expect(after).toMatchObject({ kind: "survey", surveys: [11] });
    const dropped = nextSessionStep(inventory, situation({ attempts: [{ surveyId: 10, returned: "drop" }] }));
    expect(dropped).toMatchObject({ kind: "survey", surveys: [11] });
  });

  it("ends on a complete, on a security terminate, and at the attempts cap", () => {
    const inventory = inventoryOf(
      [dear, []],
      [cheap, []],
      [survey(12, "1.00", "50"), []],
      [survey(13, "1.00", "50"), []],
    );
    expect(nextSessionStep(inventory, situation({ attempts: [{ surveyId: 10, returned: "complete" }] }))).toEqual({
      kind: "done",
      reason: "completed",
    });
    expect(nextSessionStep(inventory, situation({ attempts: [{ surveyId: 10, returned: "security" }] }))).toEqual({
      kind: "done",
      reason: "excluded",
    });
    const three = [10, 11, 12].map((surveyId) => ({ surveyId, returned: "overquota" as const }));
    expect(nextSessionStep(inventory, situation({ attempts: three }))).toEqual({ kind: "done", reason: "attempts" });
    expect(nextSessionStep(inventory, situation({ attempts: three }), { maxAttempts: 4 })).toMatchObject({
      kind: "survey",
      surveys: [13],
    });
  });

  it("keeps out what the respondent rules exclude, and offers nothing past a cap", () => {
    const inventory = inventoryOf([dear, []], [cheap, []]);
    expect(nextSessionStep(inventory, situation({ excluded: new Set([10]) }))).toMatchObject({
      kind: "survey",
      surveys: [11],
    });
    expect(nextSessionStep(inventory, situation({ excluded: new Set([10, 11]) }))).toMatchObject({
      kind: "done",
      reason: "no-survey",
    });
    expect(nextSessionStep(inventory, situation({ capReached: true }))).toEqual({ kind: "done", reason: "no-survey" });
  });

  it("weighs answers by the profiles of the language: a likely answer is worth asking, an unlikely one not", () => {
    const inventory = inventoryOf(
      [survey(30, "0.80", "80"), []],
      [survey(31, "3.00", "80"), [{ QualificationId: 43, OptionCodes: ["1"] }]],
    );
    const likely = nextSessionStep(
      inventory,
      situation({
        answerCounts: () =>
          new Map([
            ["1", 900],
            ["2", 100],
          ]),
      }),
    );
    expect(likely.kind).toBe("question");
    const unlikely = nextSessionStep(
      inventory,
      situation({
        answerCounts: () =>
          new Map([
            ["1", 0],
            ["2", 100000],
          ]),
      }),
      { questionSeconds: 60 },
    );
    expect(unlikely.kind).toBe("survey");
  });
});
