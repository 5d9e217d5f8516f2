import { connect, type SdsClient } from "../../connection/client.ts";
import { defineCommand, type CommandDefinition } from "../../framework/command.ts";
import { parseIdArgument } from "../../framework/option-values.ts";
import { inferColumns } from "../../framework/record-columns.ts";

/** How one per-survey read command fetches and shows its records. */
export interface SurveyRecordsCommand {
  readonly description: string;
  readonly examples: CommandDefinition["examples"];
  /** Fetches the response for the survey. */
  readonly fetch: (client: SdsClient, surveyId: number, signal: AbortSignal) => Promise<object>;
  /** The field of the response that holds the records. */
  readonly listField: string;
  /** Columns to put first in the table. */
  readonly preferredColumns?: readonly string[];
  /** What to say on a terminal when the list is empty. */
  readonly emptyMessage: (surveyId: number) => string;
}

/**
 * A command that reads one list of a survey (qualifications, quotas, groups, re-contacts) and
 * prints its records. The response's list field may be missing for the undocumented
 * operations: that is shown as an empty list.
 */
export function defineSurveyRecordsCommand(spec: SurveyRecordsCommand): CommandDefinition {
  return defineCommand({
    description: spec.description,
    arguments: [{ name: "SURVEY_ID", description: "the survey's id (SurveyId)" }],
    options: {},
    examples: spec.examples,
    async run(context) {
      const surveyId = parseIdArgument("SURVEY_ID", context.positionals[0] as string);
      const { client } = await connect(context);
      const response = (await spec.fetch(client, surveyId, context.signal)) as Record<string, unknown>;
      const list = response[spec.listField];
      const records = Array.isArray(list) ? (list as object[]) : [];
      await context.output.records(records, {
        columns: inferColumns(records, spec.preferredColumns),
        emptyMessage: spec.emptyMessage(surveyId),
      });
    },
  });
}
