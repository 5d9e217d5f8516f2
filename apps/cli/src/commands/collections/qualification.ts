import { tableCell } from "../../framework/cell.ts";
import { connect } from "../../connection/client.ts";
import { defineCommand } from "../../framework/command.ts";
import { parseIdArgument } from "../../framework/option-values.ts";
import { inferColumns } from "../../framework/record-columns.ts";

/** `sds collections qualification LANGUAGE_ID QUALIFICATION_ID`: one question with its options. */
export const command = defineCommand({
  description:
    "Shows one qualification (screening question) in one language, with its options: QualificationDetailById. The operation is not in the spec; its path follows public integrations.",
  arguments: [
    { name: "LANGUAGE_ID", description: "the language's id (see `sds collections languages`)" },
    { name: "QUALIFICATION_ID", description: "the qualification's id (see `sds collections qualifications`)" },
  ],
  options: {},
  examples: [
    { command: "collections qualification 3 43", description: "Question 43 in language 3 (English - United States)" },
    { command: "collections qualification 3 43 -o json | jq '.Options'", description: "Just its options" },
  ],
  async run(context) {
    const languageId = parseIdArgument("LANGUAGE_ID", context.positionals[0] as string);
    const qualificationId = parseIdArgument("QUALIFICATION_ID", context.positionals[1] as string);
    const { client } = await connect(context);
    const { Qualification: qualification } = await client.collections.qualificationDetail(languageId, qualificationId, {
      signal: context.signal,
    });
    await context.output.document(qualification, (styles, { renderKeyValues, renderTable }) => {
      const { Options: options = [], ...fields } = qualification;
      const header = renderKeyValues(
        Object.entries(fields).map(([key, value]) => [key, tableCell(value)] as const),
        styles,
      );
      if (options.length === 0) return `${header}\n${styles.bold("Options")}\n  ${styles.dim("none (free answer)")}\n`;
      const columns = inferColumns(options, ["OptionId", "OptionCode", "OptionText"]);
      const table = renderTable(
        columns,
        options.map((option) => columns.map((column) => tableCell((option as Record<string, unknown>)[column.header]))),
        { styles, maxWidth: context.output.maxWidth },
      );
      return `${header}\n${styles.bold(`Options (${options.length})`)}\n${table}`;
    });
  },
});
