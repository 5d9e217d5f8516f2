import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseRecontactRespondents } from "./index.ts";

describe("parseRecontactRespondents", () => {
  it("reads Lucid's SurveyQualifiedRespondents, IsActive missing meaning active", () => {
    const body = {
      SurveyId: 5,
      SurveyQualifiedRespondents: [{ PID: "p-1", IsActive: false }, { PID: "p-2", IsActive: true }, { PID: "p-3" }],
    };
    expect(parseRecontactRespondents(body)).toEqual({
      ok: true,
      respondents: [
        { uid: "p-1", active: false },
        { uid: "p-2", active: true },
        { uid: "p-3", active: true },
      ],
    });
  });

  it("reads Respondents given as ids or as records under each id name", () => {
    const body = {
      Respondents: [
        "a",
        { PID: "b", IsActive: false },
        { RespondentId: "c", AddedOnUTC: "2026-01-01T00:00:00Z" },
        { Uid: "d", IsActive: true },
      ],
    };
    expect(parseRecontactRespondents(body)).toEqual({
      ok: true,
      respondents: [
        { uid: "a", active: true },
        { uid: "b", active: false },
        { uid: "c", active: true },
        { uid: "d", active: true },
      ],
    });
  });

  it("reads an empty list as nobody", () => {
    expect(parseRecontactRespondents({ Respondents: [] })).toEqual({ ok: true, respondents: [] });
    expect(parseRecontactRespondents({ SurveyQualifiedRespondents: [] })).toEqual({ ok: true, respondents: [] });
  });

  it("lists a respondent once, inactive if any listing says so", () => {
    const body = { Respondents: [{ PID: "x" }, "y", { PID: "x", IsActive: false }, { PID: "x", IsActive: true }] };
    expect(parseRecontactRespondents(body)).toEqual({
      ok: true,
      respondents: [
        { uid: "x", active: false },
        { uid: "y", active: true },
      ],
    });
  });

  it("reads a list of 100,000 respondents", () => {
    const list = Array.from({ length: 100_000 }, (_, index) => ({ PID: `p${index}`, IsActive: index % 2 === 0 }));
    const result = parseRecontactRespondents({ SurveyQualifiedRespondents: list });
    expect(result.ok && result.respondents.filter((respondent) => respondent.active).length).toBe(50_000);
  });

  it.each([
    ["an HTML page", "<!DOCTYPE html><html></html>", "the body is not a JSON object but a string"],
    ["null", null, "the body is not a JSON object but null"],
    ["a body that reports an error", { hasError: true, Respondents: [] }, "hasError: true"],
    ["no list", { SurveyId: 5 }, "Respondents: expected a list of respondents, got nothing"],
    [
      "a null list",
      { SurveyQualifiedRespondents: null },
      "SurveyQualifiedRespondents: expected a list of respondents, got null",
    ],
    [
      "both lists",
      { Respondents: [], SurveyQualifiedRespondents: [] },
      "both Respondents and SurveyQualifiedRespondents",
    ],
    ["a null item", { Respondents: [null] }, "Respondents[0]: expected a respondent id or object, got null"],
    [
      "a number as an item",
      { Respondents: [42] },
      "Respondents[0]: expected a respondent id or object, got the number 42",
    ],
    ["an empty id", { Respondents: ["  "] }, "Respondents[0]: expected a respondent id, got an empty string"],
    [
      "a record with no id",
      { SurveyQualifiedRespondents: [{ IsActive: true }] },
      "SurveyQualifiedRespondents[0]: no respondent id (PID, RespondentId, Uid)",
    ],
    [
      "a number for PID",
      { SurveyQualifiedRespondents: [{ PID: 12345 }] },
      "SurveyQualifiedRespondents[0].PID: expected a non-empty string, got the number 12345",
    ],
    [
      "a null PID",
      { SurveyQualifiedRespondents: [{ PID: null }] },
      "SurveyQualifiedRespondents[0].PID: expected a non-empty string, got null",
    ],
    [
      "IsActive as a string",
      { SurveyQualifiedRespondents: [{ PID: "p", IsActive: "yes" }] },
      'SurveyQualifiedRespondents[0].IsActive: expected true or false, got a string ("yes")',
    ],
    [
      "IsActive null",
      { SurveyQualifiedRespondents: [{ PID: "p", IsActive: null }] },
      "SurveyQualifiedRespondents[0].IsActive: expected true or false, got null",
    ],
  ])("reports %s as a problem", (_name, body, message) => {
    const result = parseRecontactRespondents(body);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.problem).toContain(message);
  });

  it("never throws, whatever JSON it is given", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.record({ SurveyQualifiedRespondents: fc.array(fc.jsonValue()) })),
        (body) => {
          expect(typeof parseRecontactRespondents(body).ok).toBe("boolean");
        },
      ),
    );
  });
});
