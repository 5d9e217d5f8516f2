import { describe, expect, it } from "vitest";
import { describeConfig, loadConfig } from "../src/config/config.ts";

const minimal = { SDS_BASE_URL: "https://sds.example.com/api/v1", SDS_API_KEY: "key-123" };

describe("the quality gate's settings", () => {
  it("reads SYNC_LANGUAGE_COUNTRIES as LanguageId → country, logs it readably, and refuses anything else", () => {
    const config = loadConfig({ ...minimal, SYNC_LANGUAGE_COUNTRIES: "1=us, 3=DE" });
    expect(config.languageCountries).toEqual(
      new Map([
        [1, "US"],
        [3, "DE"],
      ]),
    );
    expect(describeConfig(config).languageCountries).toEqual({ 1: "US", 3: "DE" });
    for (const wrong of ["1=USA", "x=US", "1:US", "1=US,"])
      expect(() => loadConfig({ ...minimal, SYNC_LANGUAGE_COUNTRIES: wrong })).toThrow(/SYNC_LANGUAGE_COUNTRIES/);
  });

  it("turns rules on and off with on/off, and keeps the documented defaults", () => {
    const defaults = loadConfig(minimal);
    expect(defaults).toMatchObject({ gateBots: true, gateConcurrent: true, gateGeo: false, deviceWindowDays: 30 });
    expect(defaults.respondentMaxRisk).toBeUndefined();
    const switched = loadConfig({
      ...minimal,
      SYNC_GATE_CONCURRENT: "off",
      SYNC_GATE_GEO: "on",
      SYNC_GATE_BOTS: "OFF",
    });
    expect(switched).toMatchObject({ gateBots: false, gateConcurrent: false, gateGeo: true });
    expect(() => loadConfig({ ...minimal, SYNC_GATE_GEO: "maybe" })).toThrow(/SYNC_GATE_GEO/);
    expect(() => loadConfig({ ...minimal, SYNC_SPEEDER_FRACTION: "1.5" })).toThrow(/SYNC_SPEEDER_FRACTION/);
  });
});
