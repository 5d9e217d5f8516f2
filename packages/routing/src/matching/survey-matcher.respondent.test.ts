import { describe, expect, it } from "vitest";
import type { PastEntry } from "../respondent/respondent-types.ts";
import type { MatchableSurvey, MatchRequest } from "./match-types.ts";
import { SurveyMatcher, type SurveyMatcherOptions } from "./survey-matcher.ts";

const NOW = Date.UTC(2026, 10, 23, 12);
const HOUR = 3_600_000;

function survey(SurveyId: number, Cpi = "1.00"): MatchableSurvey {
  return { SurveyId, Cpi, Ir: "50", LanguageId: 1, DesktopAllowed: true, MobileAllowed: true, TabletAllowed: true };
}

function matcherWith(ids: readonly number[], options: SurveyMatcherOptions = {}): SurveyMatcher {
  const matcher = new SurveyMatcher(options);
  // Higher ids pay more, so the expected order is by id descending.
  for (const id of ids) matcher.upsert(survey(id, String(id)), { qualifications: [], quotas: [] });
  return matcher;
}

const entry = (surveyId: number, hoursAgo: number, outcome: PastEntry["outcome"]): PastEntry => ({
  surveyId,
  enteredAt: NOW - hoursAgo * HOUR,
  outcome,
});
const as = (history: PastEntry[], uid = "r-1"): MatchRequest => ({
  answers: {},
  now: NOW,
  respondent: { uid, history },
});
const ids = (matcher: SurveyMatcher, request: MatchRequest) => matcher.match(request).surveyIds;

describe("SurveyMatcher with a named respondent", () => {
  it("keeps a respondent out of a survey they entered, whatever the outcome, pending included", () => {
    const matcher = matcherWith([1, 2, 3, 4, 5]);
    const history = [entry(1, 1, "complete"), entry(2, 1, "terminate"), entry(3, 1, null), entry(4, 900, "security")];
    expect(matcher.match(as(history))).toEqual({ surveyIds: [5], eligible: 1 });
    expect(ids(matcher, { answers: {} })).toEqual([5, 4, 3, 2, 1]);
  });

  it("lets them back in after the outcomes the policy names, unless another entry of the same survey forbids it", () => {
    const matcher = matcherWith([1, 2, 3, 4], { policy: { reentryAfter: ["terminate", "overquota"] } });
    const history = [
      entry(1, 1, "terminate"),
      entry(2, 1, "overquota"),
      entry(3, 5, "terminate"),
      entry(3, 1, "complete"),
    ];
    expect(ids(matcher, as(history))).toEqual([4, 2, 1]);
    expect(matcher.explain(3, as(history)).reasons).toEqual([
      {
        kind: "already-entered",
        enteredAt: NOW - HOUR,
        outcome: "complete",
        message: expect.stringContaining("ended as complete") as string,
      },
    ]);
  });

  it("keeps them out of the other surveys of a group they entered, and lets a survey that left the group back in", () => {
    const matcher = matcherWith([1, 2, 3, 4]);
    matcher.setSurveyGroups(1, [70]);
    matcher.setSurveyGroups(2, [70, 80]);
    matcher.setSurveyGroups(3, [80]);
    expect(ids(matcher, as([entry(1, 2, "terminate")]))).toEqual([4, 3]);
    expect(matcher.explain(2, as([entry(1, 2, "terminate")])).reasons).toEqual([
      expect.objectContaining({
        kind: "survey-group",
        groupId: 70,
        surveyId: 1,
        enteredAt: NOW - 2 * HOUR,
        outcome: "terminate",
      }),
    ]);
    matcher.setSurveyGroups(2, [80]);
    expect(ids(matcher, as([entry(1, 2, "terminate")]))).toEqual([4, 3, 2]);
  });

  it("blocks through a group even after the entered survey closed", () => {
    const matcher = matcherWith([1, 2]);
    matcher.setSurveyGroups(1, [9]);
    matcher.setSurveyGroups(2, [9]);
    matcher.remove(1);
    expect(ids(matcher, as([entry(1, 3, "complete")]))).toEqual([]);
  });

  it("counts group entries only within the lookback and with a blocking outcome", () => {
    const matcher = matcherWith([1, 2], {
      policy: { groupLookbackMs: 24 * HOUR, groupBlockingOutcomes: ["complete", "pending"] },
    });
    matcher.setSurveyGroups(1, [5]);
    matcher.setSurveyGroups(2, [5]);
    expect(ids(matcher, as([entry(1, 30, "complete")]))).toEqual([2]);
    expect(ids(matcher, as([entry(1, 2, "terminate")]))).toEqual([2]);
    expect(ids(matcher, as([entry(1, 2, null)]))).toEqual([]);
    expect(ids(matcher, as([entry(1, 24, "complete")]))).toEqual([]);
  });

  it("admits to a re-contact study only the uids on its active list, and nobody when the list is unreadable or the respondent anonymous", () => {
    const matcher = matcherWith([1, 2, 3]);
    matcher.setRecontact(1, ["r-1", "r-2"]);
    matcher.setRecontact(2, "unreadable");
    expect(ids(matcher, as([], "r-1"))).toEqual([3, 1]);
    expect(ids(matcher, as([], "r-9"))).toEqual([3]);
    expect(ids(matcher, { answers: {} })).toEqual([3]);
    expect(matcher.explain(2, as([], "r-1")).reasons).toEqual([
      { kind: "recontact", unreadable: true, message: expect.stringContaining("could not be read") as string },
    ]);
    expect(matcher.explain(1, { answers: {} }).reasons).toEqual([
      expect.objectContaining({ kind: "recontact", unreadable: false }),
    ]);
    matcher.setRecontact(1, undefined);
    matcher.setRecontact(2, undefined);
    expect(ids(matcher, { answers: {} })).toEqual([3, 2, 1]);
  });

  it("keeps the re-contact list as it was set (the caller's set can change afterwards)", () => {
    const matcher = matcherWith([1]);
    const list = new Set(["r-1"]);
    matcher.setRecontact(1, list);
    list.delete("r-1");
    expect(ids(matcher, as([], "r-1"))).toEqual([1]);
  });

  it("keeps a re-contact study one when it closes and reopens", () => {
    const matcher = matcherWith([1, 2]);
    matcher.setRecontact(1, ["r-1"]);
    matcher.remove(1);
    matcher.upsert(survey(3), { qualifications: [], quotas: [] });
    matcher.upsert(survey(1), { qualifications: [], quotas: [] });
    expect(ids(matcher, as([], "r-2"))).toEqual([2, 3]);
  });

  it("gives no survey at all to a respondent at a 24-hour cap, and names the cap", () => {
    const matcher = matcherWith([1, 2, 3, 4], {
      policy: { reentryAfter: ["terminate"], caps: { entriesPer24h: 3, completesPer24h: 1 } },
    });
    const twoEntries = [entry(1, 1, "terminate"), entry(2, 23, "terminate"), entry(3, 25, "complete")];
    expect(ids(matcher, as(twoEntries))).toEqual([4, 2, 1]);
    const threeEntries = [...twoEntries, entry(1, 0, "terminate")];
    expect(matcher.match(as(threeEntries))).toEqual({ surveyIds: [], eligible: 0 });
    expect(matcher.explain(4, as(threeEntries)).reasons).toEqual([
      {
        kind: "respondent-cap",
        cap: "entries",
        count: 3,
        limit: 3,
        message: expect.stringContaining("3 entries in the last 24 hours") as string,
      },
    ]);
    expect(matcher.explain(4, as([entry(1, 2, "complete")])).reasons).toEqual([
      expect.objectContaining({ kind: "respondent-cap", cap: "completes", count: 1, limit: 1 }),
    ]);
  });

  it("keeps a survey marked unroutable out for everyone until the mark is cleared, naming the service's reason", () => {
    const matcher = matcherWith([1, 2]);
    matcher.setUnroutable(2, "SurveyUrl has no [#vq_tid#] placeholder");
    expect(ids(matcher, { answers: {} })).toEqual([1]);
    expect(matcher.explain(2, { answers: {} })).toEqual({
      surveyId: 2,
      eligible: false,
      reasons: [
        {
          kind: "unusable-survey-url",
          reason: "SurveyUrl has no [#vq_tid#] placeholder",
          message: "the service cannot route to it: SurveyUrl has no [#vq_tid#] placeholder",
        },
      ],
    });
    matcher.setUnroutable(2, undefined);
    expect(ids(matcher, { answers: {} })).toEqual([2, 1]);
  });

  it("takes the time from the request, else from the clock", () => {
    const matcher = matcherWith([1, 2], { policy: { caps: { entriesPer24h: 1 } } });
    const recently = { surveyId: 1, enteredAt: Date.now() - HOUR, outcome: "terminate" as const };
    expect(ids(matcher, { answers: {}, respondent: { uid: "r", history: [recently] } })).toEqual([]);
    expect(
      ids(matcher, { answers: {}, now: Date.now() + 2 * 24 * HOUR, respondent: { uid: "r", history: [recently] } }),
    ).toEqual([2]);
  });

  it("caps on the counts a caller gives for the last 24 hours, whatever the history holds", () => {
    const matcher = matcherWith([1, 2, 3], { policy: { caps: { entriesPer24h: 1200, completesPer24h: 5 } } });
    // A condensed history (the latest entry per survey and outcome) with the caller's counts beside it.
    const condensed = (last24h: { entries: number; completes: number }): MatchRequest => ({
      answers: {},
      now: NOW,
      respondent: { uid: "r", history: [entry(1, 1, "terminate")], last24h },
    });
    expect(ids(matcher, condensed({ entries: 1199, completes: 0 }))).toEqual([3, 2]);
    expect(ids(matcher, condensed({ entries: 1200, completes: 0 }))).toEqual([]);
    expect(matcher.explain(2, condensed({ entries: 40, completes: 5 })).reasons).toEqual([
      expect.objectContaining({ kind: "respondent-cap", cap: "completes", count: 5, limit: 5 }),
    ]);
    expect(matcher.respondentExclusions(condensed({ entries: 1200, completes: 0 }).respondent, NOW).capReached).toBe(
      true,
    );
    expect(() => matcher.match(condensed({ entries: 1, completes: 2 }))).toThrow(/respondent\.last24h must be/);
  });

  it("refuses a malformed respondent, history entry, time or policy with a clear error", () => {
    const matcher = matcherWith([1]);
    expect(() => matcher.match({ answers: {}, respondent: { uid: "", history: [] } })).toThrow(
      "respondent.uid must be a non-empty string",
    );
    const bad = { surveyId: 1, enteredAt: NOW, outcome: "completed" } as unknown as PastEntry;
    expect(() => matcher.match(as([entry(1, 1, null), bad]))).toThrow(/respondent\.history\[1\] must be/);
    expect(() => matcher.explain(1, as([bad]))).toThrow(/respondent\.history\[0\]/);
    expect(() => matcher.match({ answers: {}, now: Number.NaN })).toThrow(/now must be epoch milliseconds/);
    expect(() => new SurveyMatcher({ policy: { caps: { entriesPer24h: 0 } } })).toThrow(
      /caps\.entriesPer24h must be a positive integer/,
    );
    expect(() => new SurveyMatcher({ policy: { reentryAfter: ["complete" as "terminate"] } })).toThrow(/reentryAfter/);
    expect(() => {
      matcher.setSurveyGroups(1, [1.5]);
    }).toThrow(/group ids must be integers/);
    expect(() => {
      matcher.setUnroutable(1, "");
    }).toThrow(/non-empty string/);
    expect(() => {
      matcher.setRecontact(1, "r-1" as "unreadable");
    }).toThrow(/re-contact list/);
  });

  it("returns byte-identical earnings results when the request names nobody and nothing else is set", () => {
    const plain = matcherWith([3, 1, 2]);
    const configured = matcherWith([3, 1, 2], { policy: { caps: { entriesPer24h: 1 } }, yield: { explore: false } });
    configured.setSurveyGroups(1, [1]);
    configured.setSurveyGroups(2, [1]);
    configured.setYieldEvidence(3, { decided: 40, completes: 0, cutoffReachedAt: NOW });
    expect(JSON.stringify(configured.match({ answers: {}, limit: 2 }))).toBe(
      JSON.stringify(plain.match({ answers: {}, limit: 2 })),
    );
    expect(configured.explain(3, { answers: {} })).toEqual(plain.explain(3, { answers: {} }));
  });
});

describe("SurveyMatcher.respondentExclusions", () => {
  it("names exactly the surveys match() keeps out of a respondent: entered, their groups, re-contact lists, unroutable, caps", () => {
    const matcher = matcherWith([1, 2, 3, 4, 5, 6], { policy: { caps: { entriesPer24h: 3 } } });
    matcher.setSurveyGroups(1, [70]);
    matcher.setSurveyGroups(2, [70]);
    matcher.setRecontact(3, ["someone-else"]);
    matcher.setUnroutable(4, "its URL keeps a placeholder");
    const history = [entry(1, 1, "terminate")];
    const exclusions = matcher.respondentExclusions({ uid: "r-1", history }, NOW);
    expect(exclusions.capReached).toBe(false);
    expect([...exclusions.surveyIds].sort()).toEqual([1, 2, 3, 4]);
    expect(ids(matcher, as(history))).toEqual([6, 5]);
    const capped = [entry(5, 1, "terminate"), entry(6, 2, "terminate"), entry(1, 3, "terminate")];
    expect(matcher.respondentExclusions({ uid: "r-1", history: capped }, NOW).capReached).toBe(true);
    expect(ids(matcher, as(capped))).toEqual([]);
  });
});
