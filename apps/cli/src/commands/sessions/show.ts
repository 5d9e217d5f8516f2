import { defineCommand } from "../../framework/command.ts";
import { connectSync, syncConnectionOptions } from "../../sync/sync-connection.ts";
import { printSession } from "./session-view.ts";

/** `sds sessions show ID`: a session and its next step. */
export const command = defineCommand({
  description:
    "Shows a respondent's session (GET /v1/sessions/{id}): its attempts and its next step, a question with its options, a survey with its link (it stays while the survey's return is awaited), or done with its reason. --explain adds what the step rested on: the questions weighed (expected gain against the cost of the respondent's time) and the surveys the session's order starts with (Cpi, conversion, Loi, expected earnings); sds-sync gives it when the request decides a step, not while a survey's return is awaited. An unknown session is exit 4.",
  arguments: [{ name: "SESSION_ID", description: "the session's id (from sds sessions start)" }],
  options: {
    explain: { type: "boolean", description: "add the questions and surveys the step was chosen from" },
    ...syncConnectionOptions,
  },
  globalOptions: ["output", "json", "color", "timeout", "debug", "help"],
  examples: [
    { command: "sessions show q2V7mZ0yYl3xk4Jw5hXo8A", description: "Where the session stands, and what to do next" },
    { command: "sessions show q2V7mZ0yYl3xk4Jw5hXo8A --json | jq .next", description: "Just the next step" },
  ],
  async run(context) {
    const id = context.positionals[0] ?? "";
    const explain = context.options.explain === true;
    const sync = await connectSync(context);
    const session = await sync.call((client, options) => client.sessions.get(id, { explain }, options));
    if (explain && session.explanation === undefined)
      context.output.note(
        "No explanation: sds-sync explains a step when it decides one, not while a survey's return is awaited.",
      );
    await printSession(context, session);
  },
});
