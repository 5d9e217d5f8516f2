// The matcher against a brute-force oracle written from the rules alone, over generated
// inventories that were built up and changed through upserts and removals.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileTargeting } from "./compiled-survey.ts";
import { exclusionReasons } from "./evaluate.ts";
import type { MatchableSurvey, MatchRequest } from "./match-types.ts";
import { SurveyMatcher } from "./survey-matcher.ts";

interface Held {
  readonly survey: MatchableSurvey;
  readonly qualifications: { QualificationId: number; OptionCodes: string[] }[] | null;
  readonly quotas: { QuotaId: number; Remaining?: number; Conditions: { QualificationId: number; OptionCodes: string[] }[] }[] | null;
}

function codeAccepts(code: string, answer: string): boolean {
  if (code === answer) return true;
  if (!/^-?\d+(\.\d+)?$/.test(answer.trim())) return false;
  const value = Number(answer);
  const closed = /^(\d+)-(\d+)$/.exec(code);
  if (closed) return value >= Number(closed[1]) && value <= Number(closed[2]);
  const open = /^(\d+)\+$/.exec(code);
  return open !== null && value >= Number(open[1]);
}

function meets(codes: readonly string[], answers: Record<string, string[]>, id: number): boolean {
  const given = Object.hasOwn(answers, String(id)) ? (answers[String(id)] ?? []) : [];
  return given.some((answer) => codes.some((code) => codeAccepts(code, answer)));
}

function oracle(inventory: ReadonlyMap<number, Held>, request: MatchRequest & { answers: Record<string, string[]> }): number[] {
  const eligible = [...inventory.values()].filter(({ survey, qualifications, quotas }) => {
    if (qualifications === null || quotas === null) return false;
    if (request.languageId !== undefined && survey.LanguageId !== request.languageId) return false;
    if (request.device === "desktop" && !survey.DesktopAllowed) return false;
    if (request.device === "mobile" && !survey.MobileAllowed) return false;
    if (request.device === "tablet" && !survey.TabletAllowed) return false;
    if (!qualifications.every((record) => meets(record.OptionCodes, request.answers, record.QualificationId))) return false;
    return quotas.every((quota) => {
      const fallsIn = quota.Conditions.every((condition) => meets(condition.OptionCodes, request.answers, condition.QualificationId));
      return !fallsIn || quota.Remaining === undefined || quota.Remaining > 0;
    });
  });
  const earnings = (survey: MatchableSurvey) => (Number(survey.Cpi) * Number(survey.Ir)) / 100;
  eligible.sort((left, right) => earnings(right.survey) - earnings(left.survey) || left.survey.SurveyId - right.survey.SurveyId);
  return eligible.slice(0, request.limit ?? 20).map((held) => held.survey.SurveyId);
}

const codes = ["1", "2", "3", "4", "18-24", "25-34", "55+"];
const answerValues = ["1", "2", "3", "4", "20", "25", "34", "40", "60", "x"];
const qualificationIds = [1, 2, 3, 4, 5];
const conditionArbitrary = fc.record({
  QualificationId: fc.constantFrom(...qualificationIds),
  OptionCodes: fc.uniqueArray(fc.constantFrom(...codes), { minLength: 1, maxLength: 3 }),
});
const heldArbitrary = (SurveyId: number): fc.Arbitrary<Held> =>
  fc.record({
    survey: fc.record({
      SurveyId: fc.constant(SurveyId),
      Cpi: fc.constantFrom("0.50", "1.00", "1.25", "2.00", "3.10"),
      Ir: fc.constantFrom("10", "20", "50", "80", "100"),
      LanguageId: fc.constantFrom(1, 2, 3),
      DesktopAllowed: fc.boolean(),
      MobileAllowed: fc.boolean(),
      TabletAllowed: fc.boolean(),
    }),
    qualifications: fc.option(fc.array(conditionArbitrary, { maxLength: 3 }), { freq: 8, nil: null }),
    quotas: fc.option(
      fc.array(
        fc.record(
          {
            QuotaId: fc.nat(1000),
            Remaining: fc.constantFrom(-1, 0, 0, 1, 10),
            Conditions: fc.array(conditionArbitrary, { maxLength: 2 }),
          },
          { requiredKeys: ["QuotaId", "Conditions"] },
        ),
        { maxLength: 3 },
      ),
      { freq: 8, nil: null },
    ),
  });

type Operation = { readonly kind: "upsert"; readonly held: Held } | { readonly kind: "remove"; readonly surveyId: number };
const operationsArbitrary = (maxSurveyId: number, minLength: number, maxLength: number): fc.Arbitrary<Operation[]> => fc.array(
  fc.integer({ min: 1, max: maxSurveyId }).chain((surveyId) =>
    fc.oneof(
      { weight: 5, arbitrary: heldArbitrary(surveyId).map((held): Operation => ({ kind: "upsert", held })) },
      { weight: 1, arbitrary: fc.constant<Operation>({ kind: "remove", surveyId }) },
    ),
  ),
  { minLength, maxLength, size: "max" },
);
const requestArbitrary = fc.record(
  {
    answers: fc.dictionary(fc.constantFrom(...qualificationIds.map(String), "6"), fc.uniqueArray(fc.constantFrom(...answerValues), { maxLength: 3 }), {
      maxKeys: 5,
    }),
    languageId: fc.constantFrom(1, 2, 3),
    device: fc.constantFrom("desktop" as const, "mobile" as const, "tablet" as const),
    limit: fc.integer({ min: 1, max: 70 }),
  },
  { requiredKeys: ["answers"] },
);

describe("SurveyMatcher against a brute-force oracle", () => {
  it.each([
    { size: "small", maxSurveyId: 60, minLength: 1, maxLength: 120, numRuns: 200 },
    // Large enough for common codes to outgrow their sparse postings and for slots to span many words.
    { size: "large", maxSurveyId: 2000, minLength: 2500, maxLength: 3000, numRuns: 5 },
  ])("returns exactly the oracle's surveys, in its order, after any sequence of upserts and removals ($size inventories)", ({ maxSurveyId, minLength, maxLength, numRuns }) => {
    fc.assert(
      fc.property(operationsArbitrary(maxSurveyId, minLength, maxLength), fc.array(requestArbitrary, { minLength: 1, maxLength: 8 }), (operations, requests) => {
        const matcher = new SurveyMatcher();
        const inventory = new Map<number, Held>();
        for (const operation of operations) {
          if (operation.kind === "upsert") {
            matcher.upsert(operation.held.survey, { qualifications: operation.held.qualifications, quotas: operation.held.quotas });
            inventory.set(operation.held.survey.SurveyId, operation.held);
          } else {
            expect(matcher.remove(operation.surveyId)).toBe(inventory.delete(operation.surveyId));
          }
        }
        for (const request of requests) {
          const expected = oracle(inventory, request);
          const result = matcher.match(request);
          expect(result.surveyIds).toEqual(expected);
          expect(result.eligible).toBe(oracle(inventory, { ...request, limit: 5000 }).length);
          for (const survey of [...inventory.values()].slice(0, 60)) {
            const explanation = matcher.explain(survey.survey.SurveyId, request);
            expect(explanation.eligible).toBe(oracle(new Map([[0, survey]]), request).length === 1);
            // The matcher keeps targeting packed: explaining from it says what the records say.
            const fresh = exclusionReasons(survey.survey, compileTargeting(survey.qualifications, survey.quotas), new Map(Object.entries(request.answers)), request);
            expect(explanation.reasons).toEqual(fresh);
          }
        }
      }),
      { numRuns },
    );
    // Generous: the check runs packages side by side on two shared cores.
  }, 120_000);
});
