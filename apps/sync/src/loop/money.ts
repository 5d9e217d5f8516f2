/*
 * Money in the respondent loop is exact and finite: a Cpi is kept as an integer number of
 * millionths of the account's currency ("micros"), so the store's sums (earnings per survey, per
 * hour, per window, in total) are sums of integers, exact on SQLite's REAL columns up to 2^53
 * micros (about 9 billion in the currency) and on PostgreSQL's numeric. A Cpi that is not a
 * price (negative, not a number, more than six decimals, above SYNC_MAX_CPI) never reaches a
 * sum: the sync cycle quarantines the survey with the reason (cycle/quarantine.ts), and a stored
 * survey that fails the rule later (a lower SYNC_MAX_CPI) is held out of routing, so no entry
 * link carries it.
 */

/** Micros in one unit of the currency. */
export const MICROS_PER_UNIT = 1_000_000;

/**
 * Default `SYNC_MAX_CPI`: the highest Cpi taken for a price. A survey paying more per complete is
 * far likelier a broken feed than a real offer (marketplace CPIs are a few units of the currency).
 */
export const DEFAULT_MAX_CPI = 100;

/** The highest `SYNC_MAX_CPI` the configuration takes, so the highest Cpi any store ever holds. */
export const CPI_CEILING = 10_000;

const CPI_PATTERN = /^(\d{1,5})(?:\.(\d{1,6}))?$/;

/**
 * A `Cpi` from the wire as integer micros, or why it is not a price: not a non-negative decimal
 * with at most 6 decimals, or above `maxCpi` (SYNC_MAX_CPI).
 *
 * @example
 * ```ts
 * parseCpi("2.50", 100); // { micros: 2_500_000 }
 * parseCpi("-5", 100); // { problem: "its Cpi \"-5\" is not a price: …" }
 * parseCpi("100.01", 100); // { problem: "its Cpi \"100.01\" is above SYNC_MAX_CPI (100): …" }
 * ```
 */
export function parseCpi(text: string, maxCpi: number): { readonly micros: number } | { readonly problem: string } {
  const trimmed = text.trim();
  const match = CPI_PATTERN.exec(trimmed);
  const units = match?.[1];
  if (match === null || units === undefined)
    return {
      problem: `its Cpi ${JSON.stringify(text)} is not a price: a non-negative decimal with at most 6 decimals is expected`,
    };
  const micros = Number(units) * MICROS_PER_UNIT + Number((match[2] ?? "").padEnd(6, "0"));
  if (micros > Math.round(Math.min(maxCpi, CPI_CEILING) * MICROS_PER_UNIT))
    return {
      problem: `its Cpi ${JSON.stringify(text)} is above SYNC_MAX_CPI (${maxCpi}): far likelier a broken feed than a price`,
    };
  return { micros };
}

/** Why a `Cpi` is not a price (see {@link parseCpi}), or undefined when it is one. */
export function cpiProblem(text: string, maxCpi: number): string | undefined {
  const parsed = parseCpi(text, maxCpi);
  return "problem" in parsed ? parsed.problem : undefined;
}

/** Micros as an amount of the currency (the figures of the API and the status page). */
export function microsToAmount(micros: number): number {
  return micros / MICROS_PER_UNIT;
}

/**
 * An amount column of the store (integer micros) read back: a value the store should never hold
 * (not an integer, negative) is reported through `invalid`, which throws.
 */
export function storedMicros(value: unknown, invalid: (value: unknown) => never): number {
  const micros = typeof value === "string" ? Number(value) : value;
  if (typeof micros !== "number" || !Number.isSafeInteger(micros)) return invalid(value);
  return micros;
}
