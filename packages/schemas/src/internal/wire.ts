import { z } from "zod";

/*
 * Wire formats shared by several resources. The spec names types ("integer", "ISO 8601 UTC
 * date-time", "URL") but not their bounds; these accept what the spec allows and nothing
 * looser. They are plain regular expressions and `URL.canParse` rather than `z.iso.datetime()`
 * and `z.url()` because a 10,000-survey list runs them 60,000 times: the same verdicts here,
 * at about half the cost (see packages/client's benchmark).
 */

/** A JSON integer within the safe range. */
export const integer = () => z.int();

const date = String.raw`\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])`;
const time = String.raw`(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d`;
const offset = String.raw`(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?`;
const anyPrecision = new RegExp(`^${date}T${time}(?:\\.\\d{1,9})?${offset}$`);
const millisecondPrecision = new RegExp(`^${date}T${time}\\.\\d{3}${offset}$`);

/**
 * ISO 8601 date-time. The spec says UTC; a value with no offset is accepted too (read as UTC)
 * because .NET services often drop the `Z`.
 */
export const isoDateTime = () =>
  z
    .string()
    .regex(anyPrecision, "expected an ISO 8601 date-time")
    .meta({ description: "ISO 8601 date-time, UTC (Z or no offset)" });

/** ISO 8601 date-time with exactly three fractional digits, as the spec gives `LastUpdatedOnUTC`. */
export const isoDateTimeMillis = () =>
  z
    .string()
    .regex(millisecondPrecision, "expected an ISO 8601 date-time with milliseconds")
    .meta({ description: "ISO 8601 date-time with milliseconds, UTC (Z or no offset)" });

/**
 * An absolute URL of any scheme (the survey entry link). Not `format: "uri"` in the OpenAPI
 * document: survey links carry placeholders such as `[%RID%]` or `[#vq_tid#]`, which WHATWG
 * URLs accept and RFC 3986 does not.
 */
export const absoluteUrl = () =>
  z
    .string()
    .refine((value) => URL.canParse(value), "expected a URL")
    .meta({ description: "Absolute URL (WHATWG); placeholders such as [%RID%] or [#vq_tid#] allowed" });

/** A decimal number carried as a string (`Cpi`, `Ir`, `Loi`), such as `"1.50"` or `"12"`. */
export const decimalString = () => z.string().regex(/^\s*-?\d+(\.\d+)?\s*$/, "expected a decimal number as a string");
