import { defineCommand } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { connectSync, syncConnectionOptions } from "../../sync/sync-connection.ts";
import { parseAnswers } from "../match/answers.ts";
import { printSession } from "./session-view.ts";

/** `sds sessions answer ID --answers …`: the respondent's answers to a session's question. */
export const command = defineCommand({
  description:
    "Sends the respondent's answers to a session's question (POST /v1/sessions/{id}/answers), as `sds match` takes them (QUALIFICATION_ID=CODE[,CODE…], repeated; a number for a numeric question; or one JSON object), and shows the next step. sds-sync keeps them in the respondent's profile; an answer that is not one of the question's options is refused, naming the question (exit 1). Never retried: if it fails, `sds sessions show ID` says whether the answer was taken.",
  arguments: [{ name: "SESSION_ID", description: "the session's id (from sds sessions start)" }],
  options: {
    answers: {
      type: "string",
      multiple: true,
      valueName: "ANSWERS",
      description: 'QUALIFICATION_ID=CODE[,CODE…] (repeat for each question), or a JSON object {"43":["2"]}',
    },
    ...syncConnectionOptions,
  },
  globalOptions: ["output", "json", "color", "timeout", "debug", "help"],
  examples: [
    {
      command: "sessions answer q2V7mZ0yYl3xk4Jw5hXo8A --answers 43=2",
      description: "Answer question 43 with option 2",
    },
    { command: "sessions answer q2V7mZ0yYl3xk4Jw5hXo8A --answers 42=34", description: "A numeric question: the age" },
  ],
  async run(context) {
    const id = context.positionals[0] ?? "";
    if (context.options.answers === undefined)
      throw new UsageError("--answers is required", { hint: "Such as --answers 43=2, as the question's options say." });
    const answers = parseAnswers(context.options.answers);
    const sync = await connectSync(context);
    const session = await sync.call((client, options) => client.sessions.answer(id, answers, options));
    await printSession(context, session);
  },
});
