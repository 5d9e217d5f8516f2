import { defineCommand } from "../../framework/command.ts";
import { connectSync, syncConnectionOptions } from "../../sync/sync-connection.ts";
import { printSession } from "./session-view.ts";

/** `sds sessions end ID`: ends a session. */
export const command = defineCommand({
  description:
    "Ends a respondent's session (POST /v1/sessions/{id}/end): it is done (ended) and offers nothing more (outcomes of surveys already entered are still recorded). Ending an ended session shows it as it is. An unknown session is exit 4.",
  arguments: [{ name: "SESSION_ID", description: "the session's id (from sds sessions start)" }],
  options: syncConnectionOptions,
  globalOptions: ["output", "json", "color", "timeout", "debug", "help"],
  examples: [{ command: "sessions end q2V7mZ0yYl3xk4Jw5hXo8A", description: "The respondent left: end the session" }],
  async run(context) {
    const id = context.positionals[0] ?? "";
    const sync = await connectSync(context);
    const session = await sync.call((client, options) => client.sessions.end(id, options));
    await printSession(context, session);
  },
});
