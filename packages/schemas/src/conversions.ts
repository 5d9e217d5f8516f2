import type { Survey } from "./survey.ts";

/**
 * Turns a decimal string from the wire (`Cpi`, `Ir`, `Loi`) into a number.
 *
 * @throws RangeError when the value is not a decimal number.
 * @example
 * ```ts
 * parseDecimal("2.50"); // 2.5
 * ```
 */
export function parseDecimal(value: string): number {
  const trimmed = value.trim();
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  return Number(trimmed);
}

/**
 * Turns an ISO 8601 date-time from the wire into a `Date`. A value without an offset is read
 * as UTC, as the spec says every date is.
 *
 * @throws RangeError when the value is not a date-time.
 * @example
 * ```ts
 * parseWireDate("2026-11-22T10:00:00.123Z").toISOString(); // "2026-11-22T10:00:00.123Z"
 * ```
 */
export function parseWireDate(value: string): Date {
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  const date = new Date(hasOffset ? value : `${value}Z`);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    throw new RangeError(`not an ISO 8601 date-time: ${JSON.stringify(value)}`);
  }
  return date;
}

/** A device a survey can be taken on. */
export type Device = "desktop" | "mobile" | "tablet";

/** Every {@link Device}, in a stable order. */
export const devices: readonly Device[] = ["desktop", "mobile", "tablet"];

/**
 * The devices a survey allows, from its three `…Allowed` flags.
 *
 * @example
 * ```ts
 * allowedDevices(survey).has("mobile");
 * ```
 */
export function allowedDevices(
  survey: Pick<Survey, "DesktopAllowed" | "MobileAllowed" | "TabletAllowed">,
): Set<Device> {
  const allowed = new Set<Device>();
  if (survey.DesktopAllowed) allowed.add("desktop");
  if (survey.MobileAllowed) allowed.add("mobile");
  if (survey.TabletAllowed) allowed.add("tablet");
  return allowed;
}

/** The decimal strings of a survey as numbers. */
export interface SurveyNumbers {
  readonly cpi: number;
  readonly ir: number;
  readonly loi: number;
}

/** `Cpi`, `Ir` and `Loi` of a survey as numbers. @throws RangeError on a malformed value. */
export function surveyNumbers(survey: Pick<Survey, "Cpi" | "Ir" | "Loi">): SurveyNumbers {
  return { cpi: parseDecimal(survey.Cpi), ir: parseDecimal(survey.Ir), loi: parseDecimal(survey.Loi) };
}

/** The date-times of a survey as `Date`s. */
export interface SurveyDates {
  readonly lastUpdated: Date;
  readonly start: Date;
  readonly end: Date;
  readonly qualificationsUpdated: Date;
  readonly quotasUpdated: Date;
}

/** Every date-time of a survey as a `Date`. @throws RangeError on a malformed value. */
export function surveyDates(
  survey: Pick<
    Survey,
    "LastUpdatedOnUTC" | "StartDate" | "EndDate" | "Qual_LastUpdatedOnUTC" | "Quota_LastUpdatedOnUTC"
  >,
): SurveyDates {
  return {
    lastUpdated: parseWireDate(survey.LastUpdatedOnUTC),
    start: parseWireDate(survey.StartDate),
    end: parseWireDate(survey.EndDate),
    qualificationsUpdated: parseWireDate(survey.Qual_LastUpdatedOnUTC),
    quotasUpdated: parseWireDate(survey.Quota_LastUpdatedOnUTC),
  };
}
