// The matcher against a brute-force oracle written from the rules alone, over generated
// inventories that were built up and changed through upserts and removals.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileTargeting } from "./compiled-survey.ts";
import { exclusionReasons } from "./evaluate.ts";
import type { EntryOutcome, PastEntry, RoutingPolicy } from "../respondent/respondent-types.ts";
import { createSeededRandom } from "../yield/seeded-random.ts";
import type { YieldEvidence } from "../yield/yield-evidence.ts";
import type { ExclusionReason, MatchableSurvey, MatchRequest } from "./match-types.ts";
import { SurveyMatcher } from "./survey-matcher.ts";

interface Held {
  readonly survey: MatchableSurvey;
  readonly qualifications: { QualificationId: number; OptionCodes: string[] }[] | null;
  readonly quotas:
    { QuotaId: number; Remaining?: number; Conditions: { QualificationId: number; OptionCodes: string[] }[] }[] | null;
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

function oracle(
  inventory: ReadonlyMap<number, Held>,
  request: MatchRequest & { answers: Record<string, string[]> },
): number[] {
  const eligible = [...inventory.values()].filter(({ survey, qualifications, quotas }) => {
    if (qualifications === null || quotas === null) return false;
    if (request.languageId !== undefined && survey.LanguageId !== request.languageId) return false;
    if (request.device === "desktop" && !survey.DesktopAllowed) return false;
    if (request.device === "mobile" && !survey.MobileAllowed) return false;
    if (request.device === "tablet" && !survey.TabletAllowed) return false;
    if (!qualifications.every((record) => meets(record.OptionCodes, request.answers, record.QualificationId)))
      return false;
    return quotas.every((quota) => {
      const fallsIn = quota.Conditions.every((condition) =>
        meets(condition.OptionCodes, request.answers, condition.QualificationId),
      );
      return !fallsIn || quota.Remaining === undefined || quota.Remaining > 0;
    });
  });
  const earnings = (survey: MatchableSurvey) => (Number(survey.Cpi) * Number(survey.Ir)) / 100;
  eligible.sort(
    (left, right) => earnings(right.survey) - earnings(left.survey) || left.survey.SurveyId - right.survey.SurveyId,
  );
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

type Operation =
  { readonly kind: "upsert"; readonly held: Held } | { readonly kind: "remove"; readonly surveyId: number };
const operationsArbitrary = (maxSurveyId: number, minLength: number, maxLength: number): fc.Arbitrary<Operation[]> =>
  fc.array(
    fc
      .integer({ min: 1, max: maxSurveyId })
      .chain((surveyId) =>
        fc.oneof(
          { weight: 5, arbitrary: heldArbitrary(surveyId).map((held): Operation => ({ kind: "upsert", held })) },
          { weight: 1, arbitrary: fc.constant<Operation>({ kind: "remove", surveyId }) },
        ),
      ),
    { minLength, maxLength, size: "max" },
  );
const requestArbitrary = fc.record(
  {
    answers: fc.dictionary(
      fc.constantFrom(...qualificationIds.map(String), "6"),
      fc.uniqueArray(fc.constantFrom(...answerValues), { maxLength: 3 }),
      {
        maxKeys: 5,
      },
    ),
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
  ])(
    "returns exactly the oracle's surveys, in its order, after any sequence of upserts and removals ($size inventories)",
    ({ maxSurveyId, minLength, maxLength, numRuns }) => {
      fc.assert(
        fc.property(
          operationsArbitrary(maxSurveyId, minLength, maxLength),
          fc.array(requestArbitrary, { minLength: 1, maxLength: 8 }),
          (operations, requests) => {
            const matcher = new SurveyMatcher();
            const inventory = new Map<number, Held>();
            for (const operation of operations) {
              if (operation.kind === "upsert") {
                matcher.upsert(operation.held.survey, {
                  qualifications: operation.held.qualifications,
                  quotas: operation.held.quotas,
                });
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
                const fresh = exclusionReasons(
                  survey.survey,
                  compileTargeting(survey.qualifications, survey.quotas),
                  new Map(Object.entries(request.answers)),
                  request,
                );
                expect(explanation.reasons).toEqual(fresh);
              }
            }
          },
        ),
        { numRuns },
      );
      // Generous: the check runs packages side by side on two shared cores.
    },
    120_000,
  );
});

// ---------------------------------------------------------------------------------------------
// Respondent-aware rules and yield order, against the rules written out plainly.

const NOW = Date.UTC(2026, 10, 23, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const uids = ["u1", "u2", "u3", "u4"];
const outcomes = ["complete", "terminate", "overquota", "security", null] as const;
const PRIOR_STRENGTH = 10;
const COOLDOWN = 6 * HOUR;

/** What the service set besides the inventory, as plain maps (the final state of the operations). */
interface World {
  readonly groups: Map<number, readonly number[]>;
  readonly recontact: Map<number, readonly string[] | "unreadable">;
  readonly unroutable: Map<number, string>;
  readonly evidence: Map<number, YieldEvidence>;
}

type WorldOperation =
  | Operation
  | { readonly kind: "groups"; readonly surveyId: number; readonly groupIds: number[] }
  | { readonly kind: "recontact"; readonly surveyId: number; readonly list: string[] | "unreadable" | undefined }
  | { readonly kind: "unroutable"; readonly surveyId: number; readonly reason: string | undefined }
  | { readonly kind: "evidence"; readonly surveyId: number; readonly evidence: YieldEvidence | undefined };

const evidenceArbitrary: fc.Arbitrary<YieldEvidence> = fc
  .record({
    decided: fc.integer({ min: 0, max: 40 }),
    completeShare: fc.constantFrom(0, 0, 0.1, 0.5, 1),
    marketplaceConversion: fc.option(fc.constantFrom(0, 0.05, 0.3, 1), { nil: undefined }),
    cutoffAgo: fc.option(fc.constantFrom(-HOUR, 0, HOUR, 5 * HOUR, 7 * HOUR, 3 * DAY), { nil: undefined }),
  })
  .map(({ decided, completeShare, marketplaceConversion, cutoffAgo }) => ({
    decided,
    completes: Math.floor(decided * completeShare),
    ...(marketplaceConversion === undefined ? {} : { marketplaceConversion }),
    ...(cutoffAgo === undefined ? {} : { cutoffReachedAt: NOW - cutoffAgo }),
  }));

const worldOperationsArbitrary = (
  maxSurveyId: number,
  minLength: number,
  maxLength: number,
): fc.Arbitrary<WorldOperation[]> =>
  fc.array(
    // Ids past maxSurveyId are never upserted: their groups and entries still count.
    fc.integer({ min: 1, max: maxSurveyId + 5 }).chain((surveyId) =>
      fc.oneof(
        { weight: 10, arbitrary: heldArbitrary(surveyId).map((held): WorldOperation => ({ kind: "upsert", held })) },
        { weight: 2, arbitrary: fc.constant<WorldOperation>({ kind: "remove", surveyId }) },
        {
          weight: 4,
          arbitrary: fc
            .uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 2 })
            .map((groupIds): WorldOperation => ({ kind: "groups", surveyId, groupIds })),
        },
        {
          weight: 2,
          arbitrary: fc
            .oneof(
              fc.uniqueArray(fc.constantFrom(...uids), { maxLength: 3 }),
              fc.constant("unreadable" as const),
              fc.constant(undefined),
            )
            .map((list): WorldOperation => ({ kind: "recontact", surveyId, list })),
        },
        {
          weight: 1,
          arbitrary: fc
            .option(fc.constantFrom("no SurveyUrl", "unfilled placeholder [#x#]"), { nil: undefined })
            .map((reason): WorldOperation => ({ kind: "unroutable", surveyId, reason })),
        },
        {
          weight: 3,
          arbitrary: fc
            .option(evidenceArbitrary, { nil: undefined, freq: 6 })
            .map((evidence): WorldOperation => ({ kind: "evidence", surveyId, evidence })),
        },
      ),
    ),
    { minLength, maxLength, size: "max" },
  );

const policyArbitrary: fc.Arbitrary<RoutingPolicy> = fc.record(
  {
    reentryAfter: fc.subarray(["terminate", "overquota"] as ("terminate" | "overquota")[]),
    groupLookbackMs: fc.constantFrom(0, HOUR, 2 * DAY, 30 * DAY),
    groupBlockingOutcomes: fc.oneof(
      fc.constant("all" as const),
      fc.subarray(["complete", "terminate", "overquota", "security", "pending"] as (EntryOutcome | "pending")[]),
    ),
    caps: fc.record(
      { entriesPer24h: fc.integer({ min: 1, max: 12 }), completesPer24h: fc.integer({ min: 1, max: 4 }) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const entryArbitrary = (maxSurveyId: number): fc.Arbitrary<PastEntry> =>
  fc.record({
    surveyId: fc.integer({ min: 1, max: maxSurveyId + 5 }),
    enteredAt: fc
      .constantFrom(0, 10 * 60_000, 3 * HOUR, 23 * HOUR, DAY, 25 * HOUR, 3 * DAY, 40 * DAY)
      .map((ago) => NOW - ago),
    outcome: fc.constantFrom(...outcomes),
  });

const worldRequestArbitrary = (maxSurveyId: number) =>
  fc.record(
    {
      answers: requestArbitrary.map((request) => request.answers),
      languageId: fc.constantFrom(1, 2, 3),
      device: fc.constantFrom("desktop" as const, "mobile" as const, "tablet" as const),
      limit: fc.integer({ min: 1, max: 70 }),
      respondent: fc.record({
        uid: fc.constantFrom(...uids),
        history: fc.array(entryArbitrary(maxSurveyId), { maxLength: 25 }),
      }),
    },
    { requiredKeys: ["answers", "respondent"] },
  );

/** The reasons the new rules give, without their sentences, written from the rules alone. */
function naiveRespondentReasons(
  surveyId: number,
  world: World,
  policy: RoutingPolicy,
  request: MatchRequest,
): Unworded[] {
  const reasons: Unworded[] = [];
  const unroutable = world.unroutable.get(surveyId);
  if (unroutable !== undefined) reasons.push({ kind: "unusable-survey-url", reason: unroutable });
  const list = world.recontact.get(surveyId);
  if (list === "unreadable") reasons.push({ kind: "recontact", unreadable: true });
  else if (list !== undefined && (request.respondent === undefined || !list.includes(request.respondent.uid)))
    reasons.push({ kind: "recontact", unreadable: false });
  const respondent = request.respondent;
  if (respondent === undefined) return reasons;
  // The latest entry is named; among equally late ones, the first in the history.
  const latest = (entries: PastEntry[]) =>
    entries.reduce<PastEntry | undefined>(
      (best, entry) => (best === undefined || entry.enteredAt > best.enteredAt ? entry : best),
      undefined,
    );
  const reentryAfter: readonly (EntryOutcome | null)[] = policy.reentryAfter ?? [];
  const reentry = latest(
    respondent.history.filter(
      (entry) => entry.surveyId === surveyId && (entry.outcome === null || !reentryAfter.includes(entry.outcome)),
    ),
  );
  if (reentry !== undefined)
    reasons.push({ kind: "already-entered", enteredAt: reentry.enteredAt, outcome: reentry.outcome });
  const groupsOf = (id: number) => world.groups.get(id) ?? [];
  const blocking = policy.groupBlockingOutcomes ?? "all";
  for (const groupId of [...groupsOf(surveyId)].sort((left, right) => left - right)) {
    const entry = latest(
      respondent.history.filter(
        (past) =>
          past.surveyId !== surveyId &&
          groupsOf(past.surveyId).includes(groupId) &&
          past.enteredAt >= NOW - (policy.groupLookbackMs ?? Number.POSITIVE_INFINITY) &&
          (blocking === "all" || blocking.includes(past.outcome ?? "pending")),
      ),
    );
    if (entry !== undefined)
      reasons.push({
        kind: "survey-group",
        groupId,
        surveyId: entry.surveyId,
        enteredAt: entry.enteredAt,
        outcome: entry.outcome,
      });
  }
  const lastDay = respondent.history.filter((entry) => entry.enteredAt > NOW - DAY);
  const entries = lastDay.length;
  const completes = lastDay.filter((entry) => entry.outcome === "complete").length;
  const caps = policy.caps ?? {};
  if (caps.entriesPer24h !== undefined && entries >= caps.entriesPer24h)
    reasons.push({ kind: "respondent-cap", cap: "entries", count: entries, limit: caps.entriesPer24h });
  if (caps.completesPer24h !== undefined && completes >= caps.completesPer24h) {
    reasons.push({ kind: "respondent-cap", cap: "completes", count: completes, limit: caps.completesPer24h });
  }
  return reasons;
}

function naiveHeldOut(evidence: YieldEvidence | undefined): boolean {
  return (
    evidence?.cutoffReachedAt !== undefined && evidence.completes === 0 && NOW < evidence.cutoffReachedAt + COOLDOWN
  );
}

/** The expected conversion, from the prior and posterior as the issue defines them. */
function naiveEstimate(survey: MatchableSurvey, evidence: YieldEvidence | undefined): number {
  const base = evidence?.marketplaceConversion ?? Number(survey.Ir) / 100;
  const mean = Math.min(0.999, Math.max(0.001, base));
  const completes = evidence?.completes ?? 0;
  const alpha = PRIOR_STRENGTH * mean + completes;
  const beta = PRIOR_STRENGTH * (1 - mean) + ((evidence?.decided ?? 0) - completes);
  return alpha / (alpha + beta);
}

/** An exclusion reason without its sentence (distributed over the kinds). */
type Unworded = ExclusionReason extends infer Reason
  ? Reason extends ExclusionReason
    ? Omit<Reason, "message">
    : never
  : never;

function withoutMessages(reasons: readonly ExclusionReason[]): Unworded[] {
  return reasons.map((reason) => {
    expect(reason.message.length).toBeGreaterThan(10);
    const { message: _message, ...rest } = reason;
    return rest;
  });
}

/** Applies the operations to a matcher and to plain maps alike. */
function build(
  operations: readonly WorldOperation[],
  matcher: SurveyMatcher,
): { inventory: Map<number, Held>; world: World } {
  const inventory = new Map<number, Held>();
  const world: World = { groups: new Map(), recontact: new Map(), unroutable: new Map(), evidence: new Map() };
  const setOrDelete = <T>(map: Map<number, T>, key: number, value: T | undefined) =>
    value === undefined ? map.delete(key) : map.set(key, value);
  for (const operation of operations) {
    if (operation.kind === "upsert") {
      matcher.upsert(operation.held.survey, {
        qualifications: operation.held.qualifications,
        quotas: operation.held.quotas,
      });
      inventory.set(operation.held.survey.SurveyId, operation.held);
    } else if (operation.kind === "remove") {
      expect(matcher.remove(operation.surveyId)).toBe(inventory.delete(operation.surveyId));
    } else if (operation.kind === "groups") {
      matcher.setSurveyGroups(operation.surveyId, operation.groupIds);
      setOrDelete(world.groups, operation.surveyId, operation.groupIds.length === 0 ? undefined : operation.groupIds);
    } else if (operation.kind === "recontact") {
      matcher.setRecontact(operation.surveyId, operation.list);
      setOrDelete(world.recontact, operation.surveyId, operation.list);
    } else if (operation.kind === "unroutable") {
      matcher.setUnroutable(operation.surveyId, operation.reason);
      setOrDelete(world.unroutable, operation.surveyId, operation.reason);
    } else {
      matcher.setYieldEvidence(operation.surveyId, operation.evidence);
      setOrDelete(world.evidence, operation.surveyId, operation.evidence);
    }
  }
  return { inventory, world };
}

describe("SurveyMatcher with respondents, groups, re-contact lists and yield, against the rules written out plainly", () => {
  it.each([
    { size: "small", maxSurveyId: 40, minLength: 1, maxLength: 150, numRuns: 150 },
    { size: "large", maxSurveyId: 1500, minLength: 3000, maxLength: 3500, numRuns: 4 },
  ])(
    "agrees with the oracle on results, eligible counts and explanations ($size inventories)",
    ({ maxSurveyId, minLength, maxLength, numRuns }) => {
      fc.assert(
        fc.property(
          worldOperationsArbitrary(maxSurveyId, minLength, maxLength),
          policyArbitrary,
          fc.array(worldRequestArbitrary(maxSurveyId), { minLength: 1, maxLength: 6 }),
          (operations, policy, requests) => {
            const matcher = new SurveyMatcher({
              policy,
              yield: { explore: false, priorStrength: PRIOR_STRENGTH, cutoff: { cooldownMs: COOLDOWN } },
            });
            const { inventory, world } = build(operations, matcher);
            for (const generated of requests) {
              // Every request twice: naming the respondent, and anonymous.
              const { respondent: _respondent, ...anonymous } = generated;
              for (const request of [
                { ...generated, now: NOW },
                { ...anonymous, now: NOW },
              ]) {
                const qualified = oracle(inventory, { ...request, limit: 5000 });
                const eligible = qualified.filter(
                  (surveyId) => naiveRespondentReasons(surveyId, world, policy, request).length === 0,
                );
                // Earnings: the oracle's order, the new rules filtering.
                const earnings = matcher.match(request);
                expect(earnings.surveyIds).toEqual(eligible.slice(0, request.limit ?? 20));
                expect(earnings.eligible).toBe(eligible.length);
                // Yield without exploring: Cpi × posterior mean, surveys in their cool-down out.
                const byYield = eligible.filter((surveyId) => !naiveHeldOut(world.evidence.get(surveyId)));
                const yieldScore = (surveyId: number) => {
                  const survey = (inventory.get(surveyId) as Held).survey;
                  return Number(survey.Cpi) * naiveEstimate(survey, world.evidence.get(surveyId));
                };
                byYield.sort((left, right) => yieldScore(right) - yieldScore(left) || left - right);
                const yieldResult = matcher.match({ ...request, order: "yield" });
                expect(yieldResult.surveyIds).toEqual(byYield.slice(0, request.limit ?? 20));
                expect(yieldResult.eligible).toBe(byYield.length);
                for (const held of [...inventory.values()].slice(0, 40)) {
                  const surveyId = held.survey.SurveyId;
                  const explanation = matcher.explain(surveyId, { ...request, order: "yield" });
                  const fresh = exclusionReasons(
                    held.survey,
                    compileTargeting(held.qualifications, held.quotas),
                    new Map(Object.entries(request.answers)),
                    request,
                  );
                  const expected = [
                    ...withoutMessages(fresh),
                    ...naiveRespondentReasons(surveyId, world, policy, request),
                    ...(naiveHeldOut(world.evidence.get(surveyId)) ? [{ kind: "yield-cutoff" }] : []),
                  ];
                  expect(
                    withoutMessages(explanation.reasons).map((reason) =>
                      reason.kind === "yield-cutoff" ? { kind: reason.kind } : reason,
                    ),
                  ).toEqual(expected);
                  expect(explanation.eligible).toBe(expected.length === 0);
                  expect(explanation.yield?.estimate).toBe(naiveEstimate(held.survey, world.evidence.get(surveyId)));
                }
              }
            }
          },
        ),
        { numRuns },
      );
    },
    240_000,
  );

  it("samples exactly: under Thompson sampling the results are the best drawn scores, and no survey left undrawn could have reached them", () => {
    fc.assert(
      fc.property(
        worldOperationsArbitrary(300, 300, 500),
        fc.array(worldRequestArbitrary(300), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (operations, requests, seed) => {
          const matcher = new SurveyMatcher({ yield: { random: createSeededRandom(seed) } });
          const { inventory } = build(operations, matcher);
          for (const generated of requests) {
            const request = {
              answers: generated.answers,
              limit: generated.limit ?? 20,
              order: "yield" as const,
              now: NOW,
            };
            const everyone = matcher.match({ ...request, limit: 5000 });
            // explain reads the draws of the latest match of this same request object.
            const { surveyIds, eligible } = matcher.match(request);
            expect(eligible).toBe(everyone.eligible);
            expect(surveyIds.length).toBe(Math.min(request.limit, eligible));
            const explained = everyone.surveyIds.map((surveyId) => ({
              surveyId,
              explanation: matcher.explain(surveyId, request),
            }));
            const score = ({ explanation }: (typeof explained)[number]) => explanation.yield?.score ?? Number.NaN;
            const drawn = explained.filter(({ explanation }) => explanation.yield?.draw !== undefined);
            const best = drawn
              .sort((left, right) => score(right) - score(left) || left.surveyId - right.surveyId)
              .slice(0, request.limit);
            expect(surveyIds).toEqual(best.map(({ surveyId }) => surveyId));
            const last = best.at(-1);
            const threshold =
              best.length === request.limit && last !== undefined ? score(last) : Number.NEGATIVE_INFINITY;
            for (const { surveyId, explanation } of explained) {
              // Not drawn: its Cpi, the most it could score, is below the worst result.
              if (explanation.yield?.draw === undefined)
                expect(Number(inventory.get(surveyId)?.survey.Cpi)).toBeLessThan(threshold);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
