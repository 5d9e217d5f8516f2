import { StoreError } from "../../common/errors.ts";
import { CPI_CEILING, MICROS_PER_UNIT } from "../money.ts";

/*
 * The loop store's money columns hold integer micros (money.ts, migration 9). What goes in is
 * checked (a Cpi that is not a price never reaches a sum), and what comes back is checked (a
 * value no write could have made is a StoreError, never a NaN in a total).
 */

/**
 * A Cpi as the store keeps it: integer micros.
 *
 * @throws RangeError when `cpi` is not a finite amount from 0 to {@link CPI_CEILING}: the cycle
 * quarantines such Cpis and the route parses them again (money.ts `parseCpi`), so this is a caller's bug.
 */
export function cpiMicros(cpi: number): number {
  if (!(Number.isFinite(cpi) && cpi >= 0 && cpi <= CPI_CEILING))
    throw new RangeError(`an entry's Cpi must be an amount from 0 to ${CPI_CEILING}, got ${cpi}`);
  return Math.round(cpi * MICROS_PER_UNIT);
}

function micros(value: unknown, column: string): number {
  const number = typeof value === "string" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 0)
    throw new StoreError(`the loop store holds an impossible amount in ${column}: ${JSON.stringify(value)}`);
  return number;
}

/** `loop_entries.cpi_micros` read back. */
export function storedCpiMicros(value: unknown): number {
  return micros(value, "loop_entries.cpi_micros");
}

/** An `earnings_micros` column (or a sum of it) read back; no row (a window with nothing in it) is 0. */
export function storedEarningsMicros(value: unknown): number {
  return value === null || value === undefined ? 0 : micros(value, "earnings_micros");
}
