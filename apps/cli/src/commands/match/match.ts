import { defineCommand } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { parseIdArgument, parseNumberOption } from "../../framework/option-values.ts";
import { connectSync, syncConnectionOptions } from "../../sync/sync-connection.ts";
import { parseAnswers } from "./answers.ts";

const devices = ["desktop", "mobile", "tablet"] as const;
const orders = ["earnings", "yield"] as const;
const surveyColumns = ["SurveyId", "Cpi", "Loi", "Ir", "LanguageId", "Name"] as const;

/** `sds match --answers …`: the live surveys a respondent qualifies for, from sds-sync. */
export const command = defineCommand({
  description:
    "Asks sds-sync which live surveys a respondent qualifies for (POST /v1/match), best first. --answers gives the respondent's answers: QUALIFICATION_ID=CODE[,CODE…], repeated (an age is its number: 42=34), or one JSON object as the route takes it. --uid names the respondent, so their history (entries issued and imported) keeps out surveys they may not enter; --explain SURVEY_ID says why that survey is in or out. Prints a table of the surveys (or the whole answer with -o json) and how many were eligible.",
  options: {
    answers: {
      type: "string",
      multiple: true,
      valueName: "ANSWERS",
      description: 'QUALIFICATION_ID=CODE[,CODE…] (repeat for each question), or a JSON object {"42":["34"]}',
    },
    uid: { type: "string", valueName: "UID", description: "the respondent's id in your system (their history counts)" },
    explain: { type: "string", valueName: "SURVEY_ID", description: "say why this survey is in or out" },
    language: { type: "string", valueName: "ID", description: "only surveys in this language id" },
    device: { type: "string", valueName: "DEVICE", choices: devices, description: "the respondent's device" },
    limit: { type: "string", valueName: "N", description: "at most N surveys (sds-sync's default when absent)" },
    order: { type: "string", valueName: "ORDER", choices: orders, description: "earnings (default) or yield" },
    ...syncConnectionOptions,
  },
  globalOptions: ["output", "json", "raw-csv", "color", "timeout", "debug", "help"],
  examples: [
    {
      command: "match --answers 42=34 --answers 43=2 --language 3 --uid me-1 --limit 3",
      description: "A 34-year-old woman in English - United States",
    },
    {
      command: "match --answers 42=34 --uid me-1 --explain 101377",
      description: "Why survey 101377 is in or out for me-1",
    },
    { command: `match --answers '{"42":["34"]}' --json | jq .eligible`, description: "How many surveys qualify" },
  ],
  async run(context) {
    const { options } = context;
    if (options.answers === undefined)
      throw new UsageError("--answers is required", { hint: "Such as --answers 42=34 --answers 43=2 ({} for none)." });
    const explain = options.explain === undefined ? undefined : parseIdArgument("--explain", options.explain);
    const body = {
      answers: parseAnswers(options.answers),
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(explain === undefined ? {} : { explain }),
      ...(options.language === undefined ? {} : { languageId: parseIdArgument("--language", options.language) }),
      ...(options.device === undefined ? {} : { device: options.device as (typeof devices)[number] }),
      ...(options.limit === undefined
        ? {}
        : { limit: parseNumberOption("limit", options.limit, { integer: true, min: 1 }) }),
      ...(options.order === undefined ? {} : { order: options.order as (typeof orders)[number] }),
    };
    const sync = await connectSync(context);
    const result = await sync.call((client, callOptions) => client.match(body, callOptions));
    const { output } = context;
    if (output.format === "json" || output.format === "ndjson") {
      await output.document(result);
      return;
    }
    await output.records(result.surveys, {
      columns: surveyColumns.map((header) => ({
        header,
        align: header === "Name" ? "left" : "right",
        value: (survey: Record<string, unknown>) => survey[header],
      })),
      emptyMessage: "No live survey matches these answers.",
    });
    output.note(`${result.surveys.length} shown of ${result.eligible} eligible.`);
    const { explanation } = result;
    if (explanation !== undefined) {
      // In words on stderr, beside the table: `Survey 101377: out (already-entered: …)`.
      output.note(
        explanation.eligible
          ? `Survey ${explanation.surveyId}: the respondent qualifies.`
          : `Survey ${explanation.surveyId}: out.`,
      );
      for (const reason of explanation.reasons) output.note(`  ${reason.kind}: ${reason.message}`);
      if (explanation.yield !== undefined)
        output.note(
          `  yield estimate ${explanation.yield.estimate.toFixed(3)} (${explanation.yield.evidence.completes} completes of ${explanation.yield.evidence.decided} decided; prior ${explanation.yield.prior.mean.toFixed(3)} from ${explanation.yield.prior.source})`,
        );
    }
  },
});
