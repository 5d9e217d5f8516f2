import { connect } from "../../connection/client.ts";
import { defineCommand } from "../../framework/command.ts";
import { parseIdArgument } from "../../framework/option-values.ts";

const envelopeFields = new Set(["status", "hasError", "messages", "error"]);

/** `sds surveys stats ID`: the survey's stats. */
export const command = defineCommand({
  description:
    "Shows the stats of a survey (Get Survey Stats). The operation is not in the spec and its path is a guess; the stats are shown with whatever fields the service sends (the envelope fields left out).",
  arguments: [{ name: "SURVEY_ID", description: "the survey's id (SurveyId)" }],
  options: {},
  examples: [
    { command: "surveys stats 12345", description: "The survey's stats" },
    { command: "surveys stats 12345 -o json", description: "As JSON" },
  ],
  async run(context) {
    const surveyId = parseIdArgument("SURVEY_ID", context.positionals[0] as string);
    const { client } = await connect(context);
    const response = await client.surveys.stats(surveyId, { signal: context.signal });
    // The stats may sit in a `Stats` object or at the top level; show whichever it is, without the envelope.
    const body = response as Record<string, unknown>;
    const stats =
      typeof body.Stats === "object" && body.Stats !== null && !Array.isArray(body.Stats)
        ? { SurveyId: body.SurveyId ?? surveyId, ...(body.Stats as Record<string, unknown>) }
        : Object.fromEntries(Object.entries(body).filter(([key]) => !envelopeFields.has(key)));
    // On a table and in CSV, nested stats (per scope, per device) show as one row per leaf,
    // `Global.Starts  120`, never as JSON inside a cell.
    await context.output.document(stats);
  },
});
