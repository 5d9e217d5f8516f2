import { defineCommand } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { parseIdArgument } from "../../framework/option-values.ts";
import { connectSync, syncConnectionOptions } from "../../sync/sync-connection.ts";
import { parseAnswers } from "../match/answers.ts";
import { printSession } from "./session-view.ts";

const devices = ["desktop", "mobile", "tablet"] as const;

/** `sds sessions start --uid U --language-id L`: begins a respondent's session in sds-sync. */
export const command = defineCommand({
  description:
    "Begins a respondent's session in sds-sync (POST /v1/sessions) and shows its first step: a question to ask (with its options, and the command that answers it), a survey to send the respondent to (its entry link, recorded as an entry), or done with its reason. --answers passes what you already know of the respondent, as `sds match` takes it (QUALIFICATION_ID=CODE[,CODE…], repeated, or one JSON object); they are kept in the respondent's profile. --return-url is your page the respondent comes back to after each survey (sds-sync adds session=<id>). Never retried: a failed start may have begun a session, so look before starting again. --json (or -o json) prints the session as sds-sync answers it.",
  options: {
    uid: { type: "string", valueName: "UID", description: "the respondent's id in your system (required)" },
    "language-id": {
      type: "string",
      valueName: "ID",
      description: "the respondent's LanguageId: questions are asked, and surveys offered, in it (required)",
    },
    device: { type: "string", valueName: "DEVICE", choices: devices, description: "the respondent's device" },
    answers: {
      type: "string",
      multiple: true,
      valueName: "ANSWERS",
      description: 'answers known already: QUALIFICATION_ID=CODE[,CODE…] (repeat), or a JSON object {"43":["2"]}',
    },
    "return-url": {
      type: "string",
      valueName: "URL",
      description: "your page the respondent returns to after a survey (absolute http(s), no credentials or fragment)",
    },
    ...syncConnectionOptions,
  },
  globalOptions: ["output", "json", "color", "timeout", "debug", "help"],
  examples: [
    { command: "sessions start --uid r-91 --language-id 3", description: "Begin a session; see what to do first" },
    {
      command:
        "sessions start --uid r-91 --language-id 3 --answers 42=34 --device mobile --return-url https://panel.example/back",
      description: "With what you know, for a phone, coming back to your page",
    },
    { command: "sessions start --uid r-91 --language-id 3 --json | jq -r .id", description: "Just the session's id" },
  ],
  async run(context) {
    const { options } = context;
    if (options.uid === undefined)
      throw new UsageError("--uid is required", { hint: "The respondent's id in your system, such as --uid r-91." });
    if (options["language-id"] === undefined)
      throw new UsageError("--language-id is required", {
        hint: "Such as --language-id 3 (sds collections languages).",
      });
    const body = {
      uid: options.uid,
      languageId: parseIdArgument("--language-id", options["language-id"]),
      ...(options.device === undefined ? {} : { device: options.device as (typeof devices)[number] }),
      ...(options.answers === undefined ? {} : { answers: parseAnswers(options.answers) }),
      ...(options["return-url"] === undefined ? {} : { returnUrl: options["return-url"] }),
    };
    const sync = await connectSync(context);
    const session = await sync.call((client, callOptions) => client.sessions.create(body, callOptions));
    await printSession(context, session);
  },
});
