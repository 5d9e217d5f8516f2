import { describe, expect, it } from "vitest";
import { MAX_LIST_ITEMS, ParamError } from "../http/query-params.ts";
import { encodeCursor, parseSurveyId, parseSurveyQuery } from "./survey-query.ts";

const surveys = (query: string) => parseSurveyQuery(new URLSearchParams(query));

/** The ParamError a parse throws: its parameter and message. */
function refusal(parse: () => unknown): { param: string; message: string } {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ParamError);
    const { param, message } = error as ParamError;
    return { param, message };
  }
  throw new Error("expected a ParamError");
}

describe("parseSurveyQuery", () => {
  it("defaults to live surveys, 100 a page", () => {
    expect(surveys("")).toEqual({ status: "live", limit: 100 });
  });

  it("reads every filter, comma lists included", () => {
    expect(
      surveys(
        "status=all&language=3, 8&minCpi=1.5&maxCpi=4&maxLoi=20&device=mobile,tablet&updatedSince=2024-02-29&limit=1000",
      ),
    ).toEqual({
      status: "all",
      languageIds: [3, 8],
      minCpi: 1.5,
      maxCpi: 4,
      maxLoi: 20,
      devices: ["mobile", "tablet"],
      updatedSince: new Date("2024-02-29T00:00:00Z"),
      limit: 1000,
    });
  });

  it("continues after the survey a cursor names", () => {
    expect(surveys(`cursor=${encodeCursor(1234)}`)).toMatchObject({ afterId: 1234 });
    expect(refusal(() => surveys("cursor=aWQ6YWJj"))).toEqual({
      param: "cursor",
      message: "cursor: is not a cursor this service issued",
    });
  });

  it.each([
    ["2024-02-29T10:30:00Z", "2024-02-29T10:30:00.000Z"],
    ["2024-02-29T10:30:00.123456Z", "2024-02-29T10:30:00.123Z"],
    ["2024-02-29T10:30+02:00", "2024-02-29T08:30:00.000Z"],
    ["2023-12-31T23:59:59-0130", "2024-01-01T01:29:59.000Z"],
  ])("takes updatedSince=%s as %s", (value, iso) => {
    expect(surveys(`updatedSince=${encodeURIComponent(value)}`).updatedSince?.toISOString()).toBe(iso);
  });

  it.each([
    ["2024-02-30", "no such day"],
    ["2023-02-29", "no such day"],
    ["2024-04-31", "no such day"],
    ["2024-13-01", "no such day"],
    ["2024-00-10", "no such day"],
    ["2024-01-00", "no such day"],
    ["2024-01-01T25:00Z", "no such time"],
    ["2024-01-01T10:60Z", "no such time"],
    ["2024-01-01T10:00:61Z", "no such time"],
    ["2024-01-01T10:00+24:00", "no such time"],
    ["yesterday", ""],
    ["2024-1-1", ""],
    ["2024-01-01 10:00", ""],
    ["1700000000", ""],
  ])("refuses the impossible or malformed updatedSince=%s", (value, why) => {
    const { param, message } = refusal(() => surveys(`updatedSince=${encodeURIComponent(value)}`));
    expect(param).toBe("updatedSince");
    expect(message).toBe(
      `updatedSince: must be an ISO 8601 date or date-time${why ? ` (${why})` : ""}, got ${JSON.stringify(value)}`,
    );
  });

  it.each([
    ["status=open", "status"],
    ["language=en", "language"],
    ["language=-1", "language"],
    ["minCpi=-1", "minCpi"],
    ["minCpi=1e3", "minCpi"],
    [`maxCpi=1${"0".repeat(400)}`, "maxCpi"],
    ["minCpi=5&maxCpi=1", "minCpi"],
    ["maxLoi=ten", "maxLoi"],
    ["device=watch", "device"],
    ["device=", "device"],
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["limit=10&limit=20", "limit"],
    ["colour=red", "colour"],
    [`language=${Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, index) => index).join(",")}`, "language"],
  ])("refuses %s, naming %s", (query, param) => {
    const refused = refusal(() => surveys(query));
    expect(refused.param).toBe(param);
    expect(refused.message.startsWith(`${param}: `)).toBe(true);
  });
});

describe("parseSurveyId", () => {
  it("takes positive safe integers only", () => {
    expect(parseSurveyId("42")).toBe(42);
    expect(parseSurveyId(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    for (const value of ["0", "-5", "12345678901234567890", "4.2", "abc", "", " 42"])
      expect(refusal(() => parseSurveyId(value)).param).toBe("id");
  });
});
