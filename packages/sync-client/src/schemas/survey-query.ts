import { devices, type Device } from "@sds/schemas";
import { z } from "zod";

/** Default and largest page size of `GET /v1/surveys`. */
export const SURVEY_PAGE = { default: 100, max: 1000 } as const;

/** The longest comma list (`language`, `device`) one query parameter may carry. */
export const MAX_QUERY_LIST_ITEMS = 100;

/** A device a survey may allow, as `/v1/match` and `/v1/surveys` name it. */
export const DeviceName = z.enum(devices as readonly [Device, ...Device[]]);

/**
 * The query of `GET /v1/surveys`. Lists travel comma-separated (`language=3,8`,
 * `device=mobile,tablet`); sds-sync refuses an unknown, repeated or malformed parameter with a
 * 400 naming it.
 */
export const SurveyQuery = z.object({
  status: z.enum(["live", "closed", "all"]).default("live").describe("Which surveys: live, closed or all."),
  language: z
    .array(z.int().min(0))
    .max(MAX_QUERY_LIST_ITEMS)
    .optional()
    .describe("LanguageIds, comma-separated: surveys in any of them."),
  minCpi: z.number().min(0).optional().describe("Lowest Cpi (a non-negative decimal)."),
  maxCpi: z.number().min(0).optional().describe("Highest Cpi; not below minCpi."),
  maxLoi: z.number().min(0).optional().describe("Longest length of interview, in minutes."),
  device: z
    .array(DeviceName)
    .max(MAX_QUERY_LIST_ITEMS)
    .optional()
    .describe("Devices, comma-separated: a survey must allow every one named."),
  updatedSince: z
    .string()
    .optional()
    .describe("Only surveys whose stored copy changed at or after this ISO 8601 date or date-time."),
  cursor: z.string().optional().describe("The nextCursor of the previous page (opaque)."),
  limit: z.int().min(1).max(SURVEY_PAGE.max).default(SURVEY_PAGE.default).describe("Page size."),
});
/** The query of `GET /v1/surveys` as sent: every field optional. */
export type SurveyQuery = z.input<typeof SurveyQuery>;
