import { allowedDevices, parseDecimal, Survey, type Device } from "@sds/schemas";
import { UsageError } from "../../framework/errors.ts";

/** What `sds surveys list` filters on; every filter is optional and they all must hold. */
export interface SurveyFilters {
  /** Surveys in any of these languages. */
  readonly languageIds?: ReadonlySet<number>;
  readonly minCpi?: number;
  readonly maxCpi?: number;
  readonly maxLoi?: number;
  readonly minIr?: number;
  /** Surveys that allow every one of these devices. */
  readonly devices?: readonly Device[];
  /** Surveys of any of these study types. */
  readonly studyTypeIds?: ReadonlySet<number>;
  /** Surveys in any of these industries. */
  readonly industryIds?: ReadonlySet<number>;
}

/** The surveys that pass every filter, in their order. */
export function filterSurveys(surveys: readonly Survey[], filters: SurveyFilters): Survey[] {
  return surveys.filter((survey) => {
    if (filters.languageIds !== undefined && !filters.languageIds.has(survey.LanguageId)) return false;
    if (filters.studyTypeIds !== undefined && !filters.studyTypeIds.has(survey.StudyTypeId)) return false;
    if (filters.industryIds !== undefined && !filters.industryIds.has(survey.IndustryId)) return false;
    if (filters.minCpi !== undefined && decimal(survey.Cpi) < filters.minCpi) return false;
    if (filters.maxCpi !== undefined && decimal(survey.Cpi) > filters.maxCpi) return false;
    if (filters.maxLoi !== undefined && decimal(survey.Loi) > filters.maxLoi) return false;
    if (filters.minIr !== undefined && decimal(survey.Ir) < filters.minIr) return false;
    if (filters.devices !== undefined) {
      const allowed = allowedDevices(survey);
      if (!filters.devices.every((device) => allowed.has(device))) return false;
    }
    return true;
  });
}

/** A survey's decimal string as a number; a malformed one sorts and filters as NaN (never matches). */
function decimal(value: string): number {
  try {
    return parseDecimal(value);
  } catch {
    return Number.NaN;
  }
}

/** The field `Devices`: not on the wire, computed from the three `…Allowed` flags. */
export const devicesField = "Devices";

/** Every field a survey can be sorted by or shown with: the 26 of the spec plus `Devices`. */
export const surveyFieldNames: readonly string[] = [...Object.keys(Survey.shape), devicesField];

/** Short names people type for the common fields. */
const fieldAliases: Readonly<Record<string, string>> = {
  id: "SurveyId",
  language: "LanguageId",
  "study-type": "StudyTypeId",
  industry: "IndustryId",
  buyer: "BuyerId",
  updated: "LastUpdatedOnUTC",
  start: "StartDate",
  end: "EndDate",
  url: "SurveyUrl",
};

/**
 * The canonical name of a field as typed (`cpi`, `surveyid`, `id`, `Devices`), matched without
 * regard to case. Also accepts fields a survey carries beyond the spec, when `extraFields` has them.
 *
 * @throws UsageError listing the fields when it matches none.
 */
export function resolveSurveyField(typed: string, option: string, extraFields: readonly string[] = []): string {
  const wanted = typed.trim().toLowerCase();
  const alias = fieldAliases[wanted];
  if (alias !== undefined) return alias;
  const match = [...surveyFieldNames, ...extraFields].find((name) => name.toLowerCase() === wanted);
  if (match === undefined) {
    throw new UsageError(`${option}: unknown survey field "${typed}"`, {
      hint: `Fields: ${surveyFieldNames.join(", ")}.`,
    });
  }
  return match;
}

/** The value of a field of a survey, `Devices` included (as a list such as `["desktop", "mobile"]`). */
export function surveyField(survey: Survey, field: string): unknown {
  if (field === devicesField) return [...allowedDevices(survey)];
  return (survey as Record<string, unknown>)[field];
}

/** One key of a sort: a field and a direction. */
export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

/**
 * Parses `--sort`: comma-separated fields, each optionally `:asc` or `:desc` or prefixed with
 * `-` for descending (`cpi:desc,loi`, or `--sort=-cpi`).
 *
 * @throws UsageError for an unknown field or direction.
 */
export function parseSortKeys(value: string): SortKey[] {
  return value
    .split(",")
    .filter((part) => part.trim() !== "")
    .map((part) => {
      let text = part.trim();
      let descending = false;
      if (text.startsWith("-")) {
        descending = true;
        text = text.slice(1);
      }
      const [field = "", direction] = text.split(":");
      if (direction !== undefined && direction !== "asc" && direction !== "desc") {
        throw new UsageError(`--sort: direction must be asc or desc, got "${direction}"`);
      }
      return { field: resolveSurveyField(field, "--sort"), descending: descending || direction === "desc" };
    });
}

const decimalFields = new Set(["Cpi", "Ir", "Loi"]);

/** The surveys sorted by the keys (stable: equal surveys keep their order). Decimal strings sort as numbers. */
export function sortSurveys(surveys: readonly Survey[], keys: readonly SortKey[]): Survey[] {
  const comparable = (survey: Survey, field: string): number | string => {
    const value = surveyField(survey, field);
    if (decimalFields.has(field) && typeof value === "string") return decimal(value);
    if (typeof value === "number") return value;
    if (typeof value === "boolean") return value ? 1 : 0;
    if (Array.isArray(value)) return value.join(",");
    return typeof value === "string" ? value : "";
  };
  return [...surveys].sort((left, right) => {
    for (const key of keys) {
      const a = comparable(left, key.field);
      const b = comparable(right, key.field);
      const order =
        typeof a === "number" && typeof b === "number" ? compareNumbers(a, b) : String(a).localeCompare(String(b));
      if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
  });
}

/** NaN (a malformed value) sorts last. */
function compareNumbers(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a - b;
}

/** A survey reduced to the chosen fields, in that order. */
export function pickSurveyFields(survey: Survey, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, surveyField(survey, field)]));
}
