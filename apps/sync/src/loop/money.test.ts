import { describe, expect, it } from "vitest";
import { microsToAmount, parseCpi } from "./money.ts";

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
});
