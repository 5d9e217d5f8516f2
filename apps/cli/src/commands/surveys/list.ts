import type { Survey } from "@sds/schemas";
import { connect } from "../../connection/client.ts";
import { defineCommand, type OptionSpecs } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { reportInvalidSurveys } from "./invalid-surveys.ts";
import { parseNumberOption, splitList } from "../../framework/option-values.ts";
import type { RecordColumn } from "../../framework/output.ts";
import { buildSurveyFilters, surveyFilterOptions } from "./survey-filters.ts";

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
  ...surveyFilterOptions,
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
    const filters = await buildSurveyFilters(options, client, context.signal);
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
