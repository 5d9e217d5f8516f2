import type { Survey, SurveyQualification, SurveyQuota } from "@sds/schemas";
import { tableCell } from "../../framework/cell.ts";
import { connect } from "../../connection/client.ts";
import { defineCommand } from "../../framework/command.ts";
import { CliError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { parseIdArgument } from "../../framework/option-values.ts";
import {
  readQualificationTexts,
  resolveOptions,
  summarizeOptions,
  type QualificationText,
  type ResolvedOption,
} from "./qualification-text.ts";
import type { Styles } from "../../framework/styles.ts";
import type { TableRenderer } from "../../framework/table.ts";

/** A qualification record with what the catalogue says about it. */
interface DescribedQualification extends SurveyQualification {
  readonly Name?: string;
  readonly QuestionText?: string;
  readonly Options: readonly ResolvedOption[];
}

/** A quota condition with its options resolved to text. */
type DescribedCondition = Readonly<Record<string, unknown>> & { readonly Options: readonly ResolvedOption[] };

/** A quota with its conditions' options resolved to text. */
type DescribedQuota = Omit<SurveyQuota, "Conditions"> & { readonly Conditions?: readonly DescribedCondition[] };

/** `sds surveys show ID`: one live survey with its qualifications and quotas, in words. */
export const command = defineCommand({
  description:
    'Shows one live survey with its qualifications and quotas. Option ids are resolved to their text ("Female", "18–64") through the qualification catalogue in the survey\'s language, where it can be read; where it cannot, ids and codes are shown as they are. A survey that is not live is not found (exit 4).',
  arguments: [{ name: "SURVEY_ID", description: "the survey's id (SurveyId)" }],
  options: {
    resolve: {
      type: "boolean",
      negatable: true,
      description: "look option ids up in the catalogue (default); --no-resolve shows ids only, with fewer requests",
    },
  },
  examples: [
    { command: "surveys show 12345", description: "The survey, its screening questions and quotas" },
    {
      command: "surveys show 12345 -o json | jq '.qualifications[].Name'",
      description: "Just the names of its qualifications",
    },
  ],
  async run(context) {
    const surveyId = parseIdArgument("SURVEY_ID", context.positionals[0] as string);
    const { client } = await connect(context);
    const signal = context.signal;
    const { data: list, invalid } = await client.surveys.listItemwise({ signal });
    const survey = list.Surveys.find((candidate) => candidate.SurveyId === surveyId);
    if (survey === undefined) {
      if (invalid.some((item) => (item.item as { SurveyId?: unknown } | null)?.SurveyId === surveyId)) {
        throw new CliError(`survey ${surveyId} is in the list but failed validation`, ExitCode.Validation, {
          hint: "Run `sds surveys list --debug` to see the issues.",
        });
      }
      throw new CliError(`survey ${surveyId} is not among the ${list.Surveys.length} live surveys`, ExitCode.NotFound, {
        hint: "`sds surveys list` shows the live ones; `sds surveys qualifications ID` still reads a closed survey's qualifications.",
      });
    }

    const [qualificationsResponse, quotasResponse] = await Promise.all([
      client.surveys.qualifications(surveyId, { signal }),
      survey.Has_Quotas ? client.surveys.quotas(surveyId, { signal }) : undefined,
    ]);
    const records = qualificationsResponse.Qualifications;
    const quotas = quotasResponse?.Quotas ?? [];
    const conditionIds = quotas
      .flatMap((quota) =>
        (quota.Conditions ?? []).map((condition) =>
          Number((condition as { QualificationId?: unknown }).QualificationId),
        ),
      )
      .filter(Number.isInteger);
    const texts =
      context.options.resolve === false
        ? new Map<number, QualificationText>()
        : await readQualificationTexts(
            client,
            survey.LanguageId,
            [...records.map((record) => record.QualificationId), ...conditionIds],
            signal,
            (what, error) => {
              if (context.globals.debug)
                context.io.stderr.write(`debug: could not read ${what}: ${(error as Error).message}\n`);
            },
          );

    const qualifications: DescribedQualification[] = records.map((record) => {
      const text = texts.get(record.QualificationId);
      return {
        ...record,
        ...(text?.name === undefined ? {} : { Name: text.name }),
        ...(text?.questionText === undefined ? {} : { QuestionText: text.questionText }),
        Options: resolveOptions(record, text),
      };
    });
    const describedQuotas = quotas.map((quota): DescribedQuota => {
      const { Conditions: conditions, ...rest } = quota;
      if (conditions === undefined) return rest;
      const described = conditions.map((condition): DescribedCondition => {
        const id = Number((condition as { QualificationId?: unknown }).QualificationId);
        return { ...condition, Options: resolveOptions(condition, texts.get(id)) };
      });
      return { ...rest, Conditions: described };
    });
    const document = { survey, qualifications, quotas: describedQuotas };
    const { allowedDevices } = await import("@sds/schemas");
    const devices = [...allowedDevices(survey)].join(", ") || "none";
    await context.output.document(document, (styles, tables) =>
      renderSurveyDetails(
        survey,
        devices,
        qualifications,
        describedQuotas,
        texts,
        styles,
        tables,
        context.output.maxWidth,
      ),
    );
  },
});

function renderSurveyDetails(
  survey: Survey,
  devices: string,
  qualifications: readonly DescribedQualification[],
  quotas: readonly DescribedQuota[],
  texts: ReadonlyMap<number, QualificationText>,
  styles: Styles,
  { renderKeyValues, renderTable }: TableRenderer,
  width: number | undefined,
): string {
  const yesNo = (value: boolean) => (value ? "yes" : "no");
  const summary = renderKeyValues(
    [
      ["SurveyId", String(survey.SurveyId)],
      ["Name", survey.Name],
      ["CPI", survey.Cpi],
      ["LOI", survey.Loi],
      ["IR", survey.Ir],
      ["Completes", String(survey.Completes)],
      ["LanguageId", String(survey.LanguageId)],
      ["StudyTypeId", String(survey.StudyTypeId)],
      ["IndustryId", String(survey.IndustryId)],
      ["BuyerId", String(survey.BuyerId)],
      ["Devices", devices],
      ["CollectPii", yesNo(survey.CollectPii)],
      ["Dates", `${survey.StartDate} → ${survey.EndDate}`],
      ["LastUpdated", survey.LastUpdatedOnUTC],
      ["SurveyUrl", survey.SurveyUrl],
    ],
    styles,
  );
  const tableOptions = { styles, maxWidth: width };
  const qualificationTable =
    qualifications.length === 0
      ? `  ${styles.dim("none")}\n`
      : renderTable(
          [{ header: "Id", align: "right" }, { header: "Qualification" }, { header: "Options" }],
          qualifications.map((qualification) => [
            String(qualification.QualificationId),
            qualification.Name ?? qualification.QuestionText ?? "",
            summarizeOptions(qualification.Options),
          ]),
          tableOptions,
        );
  const quotaTable =
    quotas.length === 0
      ? `  ${styles.dim(survey.Has_Quotas ? "none" : "none (Has_Quotas is false)")}\n`
      : renderTable(
          [
            { header: "QuotaId", align: "right" },
            { header: "Name" },
            { header: "Completes", align: "right" },
            { header: "Target", align: "right" },
            { header: "Conditions" },
          ],
          quotas.map((quota) => {
            const fields = quota as Record<string, unknown>;
            const conditions = (quota.Conditions ?? [])
              .map((condition) => {
                const id = Number(condition.QualificationId);
                const name = texts.get(id)?.name ?? `#${tableCell(condition.QualificationId)}`;
                return `${name}: ${summarizeOptions(condition.Options)}`;
              })
              .join("; ");
            return [
              String(quota.QuotaId),
              tableCell(fields.Name),
              tableCell(fields.Completes),
              tableCell(fields.TargetCompletes),
              conditions || "all respondents",
            ];
          }),
          tableOptions,
        );
  return `${summary}\n${styles.bold(`Qualifications (${qualifications.length})`)}\n${qualificationTable}\n${styles.bold(`Quotas (${quotas.length})`)}\n${quotaTable}`;
}
