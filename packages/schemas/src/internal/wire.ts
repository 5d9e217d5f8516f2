import { z } from "zod";

/**
 * Wire formats shared by several resources. The spec names types ("integer", "ISO 8601 UTC
 * date-time") but not their bounds; these accept what the spec allows and nothing looser.
 */

/** A JSON integer within the safe range. */
export const integer = () => z.int();

/**
 * ISO 8601 date-time. The spec says UTC; a value with no offset is accepted too (read as UTC)
 * because .NET services often drop the `Z`.
 */
export const isoDateTime = () => z.iso.datetime({ local: true });

/** ISO 8601 date-time with exactly three fractional digits, as the spec gives `LastUpdatedOnUTC`. */
export const isoDateTimeMillis = () => z.iso.datetime({ local: true, precision: 3 });

/** A decimal number carried as a string (`Cpi`, `Ir`, `Loi`), such as `"1.50"` or `"12"`. */
export const decimalString = () => z.string().regex(/^\s*-?\d+(\.\d+)?\s*$/, "expected a decimal number as a string");
