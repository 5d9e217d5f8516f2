/** A decimal money string with at most this many digits before the point is read; longer ones are not money. */
const MONEY_PATTERN = /^\s*(\d{1,9})(?:\.(\d{1,6}))?\s*$/;

/**
 * A `Cpi` (a decimal string such as `"2.50"`) in integer cents, rounded half up from the third
 * decimal; `undefined` for anything that is not a finite non-negative decimal (a malformed or
 * non-finite `Cpi` never enters a sum).
 *
 * @example
 * ```ts
 * cpiCents("2.5"); // 250
 * cpiCents("NaN"); // undefined
 * ```
 */
export function cpiCents(cpi: unknown): number | undefined {
  if (typeof cpi !== "string" && typeof cpi !== "number") return undefined;
  const text = typeof cpi === "number" ? (Number.isFinite(cpi) ? cpi.toFixed(6) : "") : cpi;
  const parts = MONEY_PATTERN.exec(text);
  if (parts === null) return undefined;
  const fraction = (parts[2] ?? "").padEnd(3, "0");
  const cents = Number(parts[1]) * 100 + Number(fraction.slice(0, 2));
  return Number(fraction[2]) >= 5 ? cents + 1 : cents;
}

/** A survey's `Loi` (decimal minutes) as a number of minutes, or `undefined` when it is not one. */
export function loiMinutes(loi: unknown): number | undefined {
  const value =
    typeof loi === "number" ? loi : typeof loi === "string" && /^\s*\d+(\.\d+)?\s*$/.test(loi) ? Number(loi) : NaN;
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}
