import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSurveyGroups } from "./index.ts";

const envelope = { status: "ok", hasError: false, messages: [], error: { errorCode: "" } };

describe("parseSurveyGroups", () => {
  it("reads Lucid's shape, sorting groups and their surveys by id", () => {
    const body = {
      ...envelope,
      SurveyId: 11,
      SurveyGroups: [
        { SurveyGroupID: 9, SurveyGroupSurveys: [13, 11] },
        { SurveyGroupID: 7, SurveyGroupSurveys: [11, 12] },
      ],
    };
    expect(parseSurveyGroups(body)).toEqual({
      ok: true,
      groups: [
        { groupId: 7, surveyIds: [11, 12] },
        { groupId: 9, surveyIds: [11, 13] },
      ],
    });
  });

  it("reads each name a group id and its survey list go by, and surveys given as { SurveyId }", () => {
    const body = {
      SurveyGroups: [
        { SurveyGroupId: 1, SurveyIds: [5] },
        { Id: 2, Surveys: [{ SurveyId: 6, Name: "kept aside" }, 7] },
        { SurveyGroupID: 3, SurveyGroupSurveys: [], Name: "an empty group", Extra: { any: "thing" } },
      ],
    };
    expect(parseSurveyGroups(body)).toEqual({
      ok: true,
      groups: [
        { groupId: 1, surveyIds: [5] },
        { groupId: 2, surveyIds: [6, 7] },
        { groupId: 3, surveyIds: [] },
      ],
    });
  });

  it("reads an empty list as no groups", () => {
    expect(parseSurveyGroups({ ...envelope, SurveyGroups: [] })).toEqual({ ok: true, groups: [] });
  });

  it("merges a group listed twice and lists a survey once", () => {
    const body = {
      SurveyGroups: [
        { SurveyGroupID: 4, SurveyGroupSurveys: [2, 1, 2] },
        { SurveyGroupID: 4, SurveyGroupSurveys: [3, 1] },
      ],
    };
    expect(parseSurveyGroups(body)).toEqual({ ok: true, groups: [{ groupId: 4, surveyIds: [1, 2, 3] }] });
  });

  it("reads a list of 100,000 groups", () => {
    const list = Array.from({ length: 100_000 }, (_, index) => ({
      SurveyGroupID: index + 1,
      SurveyGroupSurveys: [index + 1, index + 2],
    }));
    const result = parseSurveyGroups({ SurveyGroups: list });
    expect(result.ok && result.groups.length).toBe(100_000);
  });

  it.each([
    ["a string", "<html>Sign in</html>", "the body is not a JSON object but a string"],
    ["null", null, "the body is not a JSON object but null"],
    ["an array", [{ SurveyGroupID: 1 }], "the body is not a JSON object but an array"],
    ["a body that reports an error", { ...envelope, hasError: true, SurveyGroups: [] }, "hasError: true"],
    ["no list", { ...envelope }, "SurveyGroups: expected a list of groups, got nothing"],
    ["a null list", { SurveyGroups: null }, "SurveyGroups: expected a list of groups, got null"],
    [
      "a list that is an object",
      { SurveyGroups: { SurveyGroupID: 1 } },
      "SurveyGroups: expected a list of groups, got an object",
    ],
    ["a null group", { SurveyGroups: [null] }, "SurveyGroups[0]: expected a group object, got null"],
    [
      "a group with no id",
      { SurveyGroups: [{ SurveyGroupSurveys: [1] }] },
      "SurveyGroups[0]: no group id (SurveyGroupID, SurveyGroupId, Id)",
    ],
    [
      "a string group id",
      { SurveyGroups: [{ SurveyGroupID: "7", SurveyGroupSurveys: [1] }] },
      'SurveyGroups[0].SurveyGroupID: expected a positive integer, got a string ("7")',
    ],
    [
      "a negative group id",
      { SurveyGroups: [{ SurveyGroupId: -7, SurveyIds: [1] }] },
      "SurveyGroups[0].SurveyGroupId: expected a positive integer, got the number -7",
    ],
    [
      "a fractional group id",
      { SurveyGroups: [{ Id: 1.5, Surveys: [1] }] },
      "SurveyGroups[0].Id: expected a positive integer, got the number 1.5",
    ],
    ["a zero group id", { SurveyGroups: [{ SurveyGroupID: 0, SurveyGroupSurveys: [1] }] }, "got the number 0"],
    [
      "an unsafe group id",
      { SurveyGroups: [{ SurveyGroupID: 2 ** 53 + 2, SurveyGroupSurveys: [1] }] },
      "SurveyGroups[0].SurveyGroupID: expected a positive integer",
    ],
    [
      "a group with no survey list",
      { SurveyGroups: [{ SurveyGroupID: 1 }] },
      "SurveyGroups[0]: no survey list (SurveyGroupSurveys, SurveyIds, Surveys)",
    ],
    [
      "a survey list that is a string",
      { SurveyGroups: [{ SurveyGroupID: 1, SurveyGroupSurveys: "1,2" }] },
      'SurveyGroups[0].SurveyGroupSurveys: expected a list of survey ids, got a string ("1,2")',
    ],
    [
      "a null survey list",
      { SurveyGroups: [{ SurveyGroupID: 1, SurveyGroupSurveys: null }] },
      "SurveyGroups[0].SurveyGroupSurveys: expected a list of survey ids, got null",
    ],
    [
      "a string survey id",
      { SurveyGroups: [{ SurveyGroupID: 1, SurveyGroupSurveys: [1, "2"] }] },
      'SurveyGroups[0].SurveyGroupSurveys[1]: expected a positive integer survey id, got a string ("2")',
    ],
    [
      "a negative survey id",
      { SurveyGroups: [{ SurveyGroupID: 1, SurveyIds: [-3] }] },
      "SurveyGroups[0].SurveyIds[0]: expected a positive integer survey id, got the number -3",
    ],
    [
      "a null survey id",
      { SurveyGroups: [{ SurveyGroupID: 1, SurveyIds: [null] }] },
      "SurveyGroups[0].SurveyIds[0]: expected a positive integer survey id, got null",
    ],
    [
      "a { SurveyId } with a fractional id",
      { SurveyGroups: [{ SurveyGroupID: 1, Surveys: [{ SurveyId: 2.5 }] }] },
      "SurveyGroups[0].Surveys[0].SurveyId: expected a positive integer survey id, got the number 2.5",
    ],
    [
      "a survey record without SurveyId",
      { SurveyGroups: [{ SurveyGroupID: 1, Surveys: [{ Id: 2 }] }] },
      "SurveyGroups[0].Surveys[0].SurveyId: expected a positive integer survey id, got nothing",
    ],
  ])("reports %s as a problem", (_name, body, message) => {
    const result = parseSurveyGroups(body);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.problem).toContain(message);
  });

  it("never throws, whatever JSON it is given", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ SurveyGroups: fc.array(fc.jsonValue()) })), (body) => {
        const result = parseSurveyGroups(body);
        expect(typeof result.ok).toBe("boolean");
      }),
    );
  });
});
