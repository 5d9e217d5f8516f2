import { describe, expect, it } from "vitest";
import { allowedDevices, parseDecimal, parseWireDate, surveyDates, surveyNumbers } from "./index.ts";
import { validSurvey } from "../test/fixtures.ts";

describe("parseDecimal", () => {
  it.each([
    ["2.50", 2.5],
    ["12", 12],
    [" 0.75 ", 0.75],
    ["-1.5", -1.5],
  ])("reads %j as %d", (input, expected) => {
    expect(parseDecimal(input)).toBe(expected);
  });

  it.each(["", "abc", "1,50", "1e3", "NaN", "Infinity", "1."])(
    "refuses %j with a RangeError naming the value",
    (input) => {
      expect(() => parseDecimal(input)).toThrow(RangeError);
    },
  );
});

describe("parseWireDate", () => {
  it("keeps milliseconds", () => {
    expect(parseWireDate("2026-11-20T08:15:30.123Z").toISOString()).toBe("2026-11-20T08:15:30.123Z");
  });

  it("reads a date-time without an offset as UTC", () => {
    expect(parseWireDate("2026-12-31T23:59:59").toISOString()).toBe("2026-12-31T23:59:59.000Z");
  });

  it("honours an explicit offset", () => {
    expect(parseWireDate("2026-11-20T10:00:00+02:00").toISOString()).toBe("2026-11-20T08:00:00.000Z");
  });

  it.each(["", "tomorrow", "2026-13-45T00:00:00Z", "1700000000"])("refuses %j", (input) => {
    expect(() => parseWireDate(input)).toThrow(RangeError);
  });
});

describe("survey helpers", () => {
  it("turns the device flags into a set", () => {
    expect([...allowedDevices(validSurvey)]).toEqual(["desktop", "mobile"]);
    expect(allowedDevices({ DesktopAllowed: false, MobileAllowed: false, TabletAllowed: true }).has("tablet")).toBe(
      true,
    );
  });

  it("gives Cpi, Ir and Loi as numbers", () => {
    expect(surveyNumbers(validSurvey)).toEqual({ cpi: 2.5, ir: 35, loi: 12 });
  });

  it("gives every date-time as a Date", () => {
    const dates = surveyDates(validSurvey);
    expect(dates.lastUpdated.getUTCMilliseconds()).toBe(123);
    expect(dates.end.toISOString()).toBe("2026-12-31T23:59:59.000Z");
  });
});
