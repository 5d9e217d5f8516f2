import { describe, expect, it } from "vitest";
import { CPI_CEILING, microsToAmount, parseCpi as parseCpiUpTo } from "./money.ts";

const parseCpi = (text: string) => parseCpiUpTo(text, CPI_CEILING);

describe("parseCpi", () => {
  it("keeps a price exactly, in integer micros", () => {
    expect(parseCpi("2.50")).toEqual({ micros: 2_500_000 });
    expect(parseCpi(" 0.10 ")).toEqual({ micros: 100_000 });
    expect(parseCpi("12.345678")).toEqual({ micros: 12_345_678 });
    expect(parseCpi("10000")).toEqual({ micros: 10_000_000_000 });
    expect(parseCpi("0")).toEqual({ micros: 0 });
    expect(microsToAmount(12_345_678)).toBe(12.345678);
  });

  it.each([
    "NaN",
    "Infinity",
    "-Infinity",
    "-5",
    "-0.01",
    "1e400",
    "1e3",
    "",
    " ",
    "12.3456789",
    "0x10",
    "1,50",
    "10000.01",
  ])("refuses %j as a price", (text) => {
    expect(parseCpi(text)).toEqual({ problem: expect.stringContaining(`its Cpi ${JSON.stringify(text)}`) as string });
  });

  it("refuses absurdly large values without losing digits on the way", () => {
    expect(parseCpi("99999999999999999999999")).toHaveProperty("problem");
    expect(parseCpi("99999.999999")).toHaveProperty("problem");
  });

  it("takes SYNC_MAX_CPI as the highest price: 100 passes, 100.01 does not", () => {
    expect(parseCpiUpTo("100", 100)).toEqual({ micros: 100_000_000 });
    expect(parseCpiUpTo("100.000000", 100)).toEqual({ micros: 100_000_000 });
    expect(parseCpiUpTo("100.01", 100)).toEqual({
      problem: expect.stringContaining("above SYNC_MAX_CPI (100)") as string,
    });
    expect(parseCpiUpTo("100.000001", 100)).toHaveProperty("problem");
    expect(parseCpiUpTo("2.5", 2.5)).toEqual({ micros: 2_500_000 });
  });
});
