import { connect } from "../../connection/client.ts";
import { defineCommand } from "../../framework/command.ts";
import type { Survey } from "@sds/schemas";
import { CliError, UsageError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { printLinkResult } from "./link-signing.ts";
import { parseIdArgument } from "../../framework/option-values.ts";

/** `sds link entry SURVEY_ID --token T [--uid U]`: prints a survey's entry link. */
export const command = defineCommand({
  description:
    "Prints the entry link of a live survey: its SurveyUrl with [#vq_tid#] and [%RID%] filled with the token and [#vq_tuid#] with the uid (any case, percent-encoded), signed with the account's IncomingEncryption when it is enabled. The key is never printed. A SurveyUrl that cannot become a link (a placeholder nothing fills, a scheme other than http/https, user@ before the host) is reported on stderr and exits 1.",
  arguments: [{ name: "SURVEY_ID", description: "the survey's id (SurveyId)" }],
  options: {
    token: {
      type: "string",
      valueName: "T",
      description: "the transaction token of this entry (fills [#vq_tid#] and [%RID%]); required",
    },
    uid: { type: "string", valueName: "U", description: "the respondent's id in your system (fills [#vq_tuid#])" },
  },
  examples: [{ command: "link entry 12345 --token t-8f2c --uid r-91", description: "An entry link for survey 12345" }],
  async run(context) {
    const surveyId = parseIdArgument("SURVEY_ID", context.positionals[0] as string);
    const { token, uid } = context.options;
    if (token === undefined || token === "")
      throw new UsageError("--token is required", { hint: "Pass the transaction token of this entry: --token T." });
    const { client } = await connect(context);
    const [{ data: account }, survey] = await Promise.all([
      client.account.get({ signal: context.signal }),
      findSurvey(context, surveyId),
    ]);
    for (const settings of [account.IncomingEncryption, account.OutgoingEncryption])
      if (settings.EncryptionKey) context.registerSecret(settings.EncryptionKey);
    const { buildEntryLink, entryLinkProblem, isRoutingError } = await import("@sds/routing");
    // The survey's data, not the command line, is at fault: a warning on stderr, exit 1.
    const problem = entryLinkProblem(survey.SurveyUrl);
    if (problem !== undefined) {
      context.output.warn(`survey ${surveyId}: ${problem.message} (${problem.code})`);
      throw new CliError(`survey ${surveyId} has no usable entry link`, ExitCode.Failure, {
        hint: "Its SurveyUrl comes from the marketplace; report it there, or skip this survey.",
      });
    }
    let link: string;
    try {
      link = buildEntryLink(
        survey,
        { token, ...(uid === undefined ? {} : { uid }) },
        { encryption: account.IncomingEncryption },
      );
    } catch (error) {
      if (isRoutingError(error)) throw new UsageError(`survey ${surveyId}: ${error.message}`);
      throw error;
    }
    await printLinkResult(context, link, { surveyId, url: link });
  },
});

async function findSurvey(context: Parameters<typeof connect>[0], surveyId: number): Promise<Survey> {
  const { client } = await connect(context);
  const list = await client.surveys.list({ signal: context.signal });
  const survey = list.Surveys.find((candidate) => candidate.SurveyId === surveyId);
  if (survey === undefined) {
    throw new CliError(`survey ${surveyId} is not among the ${list.Surveys.length} live surveys`, ExitCode.NotFound, {
      hint: "`sds surveys list` shows the live ones.",
    });
  }
  return survey;
}
