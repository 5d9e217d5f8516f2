import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSurveyStats } from "./index.ts";

describe("parseSurveyStats", () => {
  it("prefers the supplier's own figures over the global ones, with Lucid's names", () => {
    const body = {
      SupplierStatistics: { EffectiveEPC: 0.5, SystemConversion: 25, LengthOfInterview: 12 },
      SurveyStatistics: { EffectiveEPC: 0.2, SystemConversion: 10, LengthOfInterview: 14 },
    };
    expect(parseSurveyStats(body)).toEqual({
      ok: true,
      stats: { conversion: 0.25, effectiveEpc: 0.5, lengthOfInterview: 12, scope: "supplier" },
    });
  });

  it("reads Supplier and Global nested under Stats", () => {
    const body = {
      SurveyId: 3,
      Stats: { Global: { SystemConversion: 40 }, Supplier: { SystemConversion: 50, EffectiveEPC: "1.25" } },
    };
    expect(parseSurveyStats(body)).toEqual({
      ok: true,
      stats: { conversion: 0.5, effectiveEpc: 1.25, scope: "supplier" },
    });
  });

  it("falls back to the global figures when the supplier has none", () => {
    expect(
      parseSurveyStats({ Stats: { Supplier: {}, Global: { SystemConversion: 8, LengthOfInterview: 9 } } }),
    ).toEqual({
      ok: true,
      stats: { conversion: 0.08, lengthOfInterview: 9, scope: "global" },
    });
    expect(parseSurveyStats({ SupplierStatistics: null, SurveyStatistics: { EffectiveEPC: 0.3 } })).toEqual({
      ok: true,
      stats: { effectiveEpc: 0.3, scope: "global" },
    });
  });

  it("reads flat figures, under Stats or at the top level, as of unknown scope", () => {
    expect(parseSurveyStats({ Stats: { SystemConversion: 100, EffectiveEPC: 0 } })).toEqual({
      ok: true,
      stats: { conversion: 1, effectiveEpc: 0, scope: "unknown" },
    });
    expect(parseSurveyStats({ SurveyId: 1, LengthOfInterview: 15, SystemConversion: null })).toEqual({
      ok: true,
      stats: { lengthOfInterview: 15, scope: "unknown" },
    });
  });

  it("reads a body without figures as ok with none", () => {
    for (const body of [
      {},
      { SurveyId: 4 },
      { Stats: null },
      { Stats: {} },
      { Stats: { Starts: 10, Completes: 2 } },
      { Stats: { Supplier: {}, Global: {} } },
    ]) {
      expect(parseSurveyStats(body), JSON.stringify(body)).toEqual({ ok: true, stats: { scope: "unknown" } });
    }
  });

  it.each([
    ["an HTML page", "<html></html>", "the body is not a JSON object but a string"],
    ["an array", [], "the body is not a JSON object but an array"],
    ["a body that reports an error", { hasError: true }, "hasError: true"],
    ["Stats as a string", { Stats: "n/a" }, 'Stats: expected an object, got a string ("n/a")'],
    ["a scope that is a number", { Stats: { Supplier: 3 } }, "Stats.Supplier: expected an object, got the number 3"],
    [
      "a negative conversion",
      { SupplierStatistics: { SystemConversion: -1 } },
      "SupplierStatistics.SystemConversion: expected a non-negative number, got the number -1",
    ],
    [
      "a conversion over 100 %",
      { SurveyStatistics: { SystemConversion: 250 } },
      "SurveyStatistics.SystemConversion: expected a percentage from 0 to 100, got 250",
    ],
    [
      "text for an EPC",
      { Stats: { EffectiveEPC: "high" } },
      'Stats.EffectiveEPC: expected a non-negative number, got a string ("high")',
    ],
    [
      "a boolean for a length of interview",
      { LengthOfInterview: true },
      "LengthOfInterview: expected a non-negative number, got the boolean true",
    ],
  ])("reports %s as a problem", (_name, body, message) => {
    const result = parseSurveyStats(body);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.problem).toContain(message);
  });

  it("never throws, and keeps conversion within 0..1, whatever JSON it is given", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({
            Stats: fc.dictionary(
              fc.constantFrom("Supplier", "Global", "SystemConversion", "EffectiveEPC"),
              fc.jsonValue(),
            ),
          }),
        ),
        (body) => {
          const result = parseSurveyStats(body);
          if (result.ok && result.stats.conversion !== undefined)
            expect(result.stats.conversion).toBeGreaterThanOrEqual(0);
          if (result.ok && result.stats.conversion !== undefined)
            expect(result.stats.conversion).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
