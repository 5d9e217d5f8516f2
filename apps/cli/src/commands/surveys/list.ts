import type { Device, Survey } from "@sds/schemas";
import { connect, type SdsClient } from "../../connection/client.ts";
import { defineCommand, type OptionSpecs, type OptionValues } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { reportInvalidSurveys } from "./invalid-surveys.ts";
import { parseIdList, parseNumberOption, splitList } from "../../framework/option-values.ts";
import type { RecordColumn } from "../../framework/output.ts";
import type { SurveyFilters } from "./survey-query.ts";

const deviceNames = ["desktop", "mobile", "tablet"] as const;
const defaultTableFields = [
  "SurveyId",
  "Name",
  "Cpi",
  "Loi",
  "Ir",
  "LanguageId",
  "StudyTypeId",
  "Completes",
  "Devices" /* survey-query's devicesField */,
  "EndDate",
];
const numericFields = new Set([
  "SurveyId",
  "Cpi",
  "Loi",
  "Ir",
  "LanguageId",
  "StudyTypeId",
  "IndustryId",
  "BuyerId",
  "Completes",
  "Revenue",
  "IncidentRate",
  "LengthOfInterview",
]);

const listOptions = {
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
  sort: {
    type: "string",
    valueName: "FIELDS",
    description: "sort by fields, each optionally :desc (cpi:desc,loi); decimals sort as numbers",
  },
  limit: { type: "string", valueName: "N", description: "show at most N surveys (after sorting)" },
  fields: {
    type: "string",
    valueName: "FIELDS",
    description: "the fields to show, comma-separated (any survey field, or Devices)",
  },
} as const satisfies OptionSpecs;

/** `sds surveys list`: live surveys, filtered, sorted, limited. */
export const command = defineCommand({
  description:
    "Lists the live surveys. Filters combine (a survey must pass all of them); options that take ids accept several, comma-separated or repeated. --country finds the languages of a country through the languages collection. Surveys that fail validation are left out, named in a warning, and make the exit code 6. JSON output holds whole surveys unless --fields picks fields.",
  options: listOptions,
  examples: [
    {
      command: "surveys list --country US --device mobile --min-cpi 1.5 --sort cpi:desc --limit 20",
      description: "The 20 best-paying US surveys open to mobile",
    },
    {
      command: "surveys list --max-loi 10 --fields SurveyId,Name,Loi,Cpi -o csv > short.csv",
      description: "Short surveys as CSV",
    },
    { command: "surveys list -o ndjson | jq -c 'select(.Completes > 100)'", description: "One JSON object per line" },
  ],
  async run(context) {
    const { options, output } = context;
    // Loaded here: the field rules read the survey schema, which `sds help` must not load.
    const { filterSurveys, parseSortKeys, pickSurveyFields, resolveSurveyField, sortSurveys, surveyField } =
      await import("./survey-query.ts");
    const fields =
      options.fields === undefined
        ? undefined
        : splitList([options.fields]).map((field) => resolveSurveyField(field, "--fields"));
    if (fields?.length === 0) throw new UsageError("--fields needs at least one field");
    const sortKeys = options.sort === undefined ? [] : parseSortKeys(options.sort);
    const limit =
      options.limit === undefined ? undefined : parseNumberOption("limit", options.limit, { integer: true, min: 0 });

    const { client } = await connect(context);
    const filters = await buildFilters(options, client, context.signal);
    const { data: list, invalid } = await client.surveys.listItemwise({ signal: context.signal });
    const invalidError = reportInvalidSurveys(context, invalid);
    const matching = sortSurveys(filterSurveys(list.Surveys, filters), sortKeys);
    const shown = limit === undefined ? matching : matching.slice(0, limit);

    const columnFields = fields ?? defaultTableFields;
    const columns: RecordColumn<Survey | Record<string, unknown>>[] = columnFields.map((field) => ({
      header: field,
      align: numericFields.has(field) ? "right" : "left",
      value: (row) =>
        fields === undefined ? surveyField(row as Survey, field) : (row as Record<string, unknown>)[field],
    }));
    const rows = fields === undefined ? shown : shown.map((survey) => pickSurveyFields(survey, fields));
    await output.records(rows, {
      columns,
      emptyMessage: `No live surveys match (${list.Surveys.length} live in total).`,
    });
    if (output.format === "table" && shown.length > 0) {
      output.note(
        output.errorStyles.dim(
          `${shown.length} of ${matching.length} matching surveys shown (${list.Surveys.length} live).`,
        ),
      );
    }
    if (invalidError !== undefined) throw invalidError;
  },
});

type ListOptions = OptionValues<typeof listOptions>;

async function buildFilters(options: ListOptions, client: SdsClient, signal: AbortSignal): Promise<SurveyFilters> {
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
