import { describe, expect, it } from "vitest";
import { formatMoney } from "./money.ts";

describe("formatMoney", () => {
  it("writes an amount with its currency's symbol, rounded to cents", () => {
    expect(formatMoney(1234.5, "USD")).toBe("$1,234.50");
    expect(formatMoney(0.625, "EUR")).toBe("€0.63");
  });

  it("falls back to the code after the figure for a code Intl refuses, and a dash for no number", () => {
    expect(formatMoney(12, "not-a-code")).toBe("12.00 not-a-code");
    expect(formatMoney(Number.NaN, "USD")).toBe("—");
    expect(formatMoney(null, "USD")).toBe("—");
  });
});
