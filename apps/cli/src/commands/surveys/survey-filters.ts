import type { Device } from "@sds/schemas";
import type { SdsClient } from "../../connection/client.ts";
import type { OptionSpecs, OptionValues } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { parseIdList, parseNumberOption, splitList } from "../../framework/option-values.ts";
import type { SurveyFilters } from "./survey-query.ts";

/*
 * The survey filters of `sds surveys list`, also taken by `sds export` under the same names, so a
 * list a user has narrowed down exports with the same flags.
 */

const deviceNames = ["desktop", "mobile", "tablet"] as const;

/** The filter options, in the order `--help` lists them. */
export const surveyFilterOptions = {
  language: { type: "string", multiple: true, valueName: "ID", description: "only surveys in these language ids" },
  country: {
    type: "string",
    multiple: true,
    valueName: "CODE",
    description: "only surveys in a language of these countries (ISO codes such as US, GB)",
  },
  "min-cpi": { type: "string", valueName: "AMOUNT", description: "only surveys paying at least this CPI" },
  "max-cpi": { type: "string", valueName: "AMOUNT", description: "only surveys paying at most this CPI" },
  "max-loi": { type: "string", valueName: "MINUTES", description: "only surveys at most this long (LOI)" },
  "min-ir": {
    type: "string",
    valueName: "PERCENT",
    description: "only surveys with at least this incidence rate (IR)",
  },
  device: {
    type: "string",
    multiple: true,
    valueName: "DEVICE",
    choices: deviceNames,
    description: "only surveys that allow this device: desktop, mobile or tablet (repeat for all of several)",
  },
  "study-type": {
    type: "string",
    multiple: true,
    valueName: "ID",
    description: "only surveys of these study type ids",
  },
  industry: { type: "string", multiple: true, valueName: "ID", description: "only surveys of these industry ids" },
} as const satisfies OptionSpecs;

type FilterOptions = OptionValues<typeof surveyFilterOptions>;

/**
 * The {@link SurveyFilters} the options ask for; `--country` reads the languages collection to find
 * the languages of each country (nothing is read without it).
 *
 * @throws UsageError for a malformed value or a country code no language has.
 */
export async function buildSurveyFilters(
  options: FilterOptions,
  client: SdsClient,
  signal: AbortSignal,
): Promise<SurveyFilters> {
  const number = (name: "min-cpi" | "max-cpi" | "max-loi" | "min-ir") => {
    const value = options[name];
    return value === undefined ? undefined : parseNumberOption(name, value, { min: 0 });
  };
  const ids = (name: "language" | "study-type" | "industry") =>
    options[name] === undefined ? undefined : new Set(parseIdList(name, options[name]));
  let languageIds = ids("language");
  if (options.country !== undefined) {
    const countryLanguages = await languagesOfCountries(splitList(options.country), client, signal);
    languageIds =
      languageIds === undefined ? countryLanguages : new Set([...languageIds].filter((id) => countryLanguages.has(id)));
  }
  const studyTypeIds = ids("study-type");
  const industryIds = ids("industry");
  return {
    ...optional("minCpi", number("min-cpi")),
    ...optional("maxCpi", number("max-cpi")),
    ...optional("maxLoi", number("max-loi")),
    ...optional("minIr", number("min-ir")),
    ...(languageIds === undefined ? {} : { languageIds }),
    ...(studyTypeIds === undefined ? {} : { studyTypeIds }),
    ...(industryIds === undefined ? {} : { industryIds }),
    ...(options.device === undefined ? {} : { devices: options.device as Device[] }),
  };
}

/** `{ [key]: value }`, or nothing when the value is absent (exactOptionalPropertyTypes forbids `key: undefined`). */
function optional<Key extends string, Value>(key: Key, value: Value | undefined): Partial<Record<Key, Value>> {
  return value === undefined ? {} : ({ [key]: value } as Record<Key, Value>);
}

async function languagesOfCountries(
  countries: readonly string[],
  client: SdsClient,
  signal: AbortSignal,
): Promise<Set<number>> {
  const { Languages: languages } = await client.collections.languages({ signal });
  const wanted = new Set(countries.map((country) => country.toUpperCase()));
  const ids = new Set<number>();
  const known = new Set<string>();
  for (const language of languages) {
    if (language.CountryCode === undefined) continue;
    known.add(language.CountryCode.toUpperCase());
    // Ids seen as strings ("3") in some integrations compare as numbers with survey LanguageIds.
    if (wanted.has(language.CountryCode.toUpperCase())) ids.add(Number(language.Id));
  }
  const unknown = [...wanted].filter((country) => !known.has(country));
  if (unknown.length > 0) {
    throw new UsageError(`--country: no language of the service has country code ${unknown.join(", ")}`, {
      hint: `Known codes: ${[...known].sort().join(", ")}.`,
    });
  }
  return ids;
}
