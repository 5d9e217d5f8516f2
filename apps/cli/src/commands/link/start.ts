import { nonEmpty, normalizeBaseUrl } from "../../connection/config.ts";
import { defineCommand } from "../../framework/command.ts";
import { ConfigError, UsageError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { parseNumberOption } from "../../framework/option-values.ts";
import { SYNC_URL_ENV } from "../../sync/sync-connection.ts";
import { printLinkResult } from "./link-signing.ts";

/** The environment variable with the session secret: the name sds-sync itself reads. */
const SESSION_SECRET_ENV = "SYNC_SESSION_SECRET";
const devices = ["desktop", "mobile", "tablet"];

/** `sds link start --uid U --language-id L`: prints a start link of sds-sync's respondent page. */
export const command = defineCommand({
  description: `Prints a start link of sds-sync's respondent page: <base URL>/s/start?uid=…&languageId=…[&device=…][&returnUrl=…]&ts=<now>&sig=<HMAC-SHA256 hex over the query before &sig=>, signed with ${SESSION_SECRET_ENV} (32 characters or more, from the environment; never printed). The base URL is --sync-url, else ${SYNC_URL_ENV}: where respondents' browsers reach sds-sync's /s/ pages (its SYNC_OUTCOMES_PUBLIC_URL when the page has a listener of its own). The link can be used for SYNC_START_LINK_SECONDS (600 by default).`,
  options: {
    uid: { type: "string", valueName: "U", description: "the respondent's id in your system; required" },
    "language-id": { type: "string", valueName: "L", description: "the session's LanguageId; required" },
    device: { type: "string", valueName: "D", description: "desktop, mobile or tablet" },
    "return-url": {
      type: "string",
      valueName: "URL",
      description: "your page the end of the session links to (absolute http(s))",
    },
    // The global --base-url is the Supplier Data Service's; sds-sync's URL is --sync-url in every command.
    "sync-url": {
      type: "string",
      valueName: "URL",
      description: `where respondents reach sds-sync, such as https://sync.example.com (env ${SYNC_URL_ENV})`,
    },
  },
  examples: [
    {
      command: "link start --uid r-91 --language-id 3",
      description: `With ${SESSION_SECRET_ENV} and ${SYNC_URL_ENV} set: a link for respondent r-91 in language 3`,
    },
    {
      command: "link start --uid r-91 --language-id 9 --device mobile --return-url https://panel.example/done",
      description: "On a phone, in German, back to your page at the end",
    },
  ],
  async run(context) {
    const { options, io } = context;
    const uid = options.uid;
    if (uid === undefined || uid === "")
      throw new UsageError("--uid is required", { hint: "Pass the respondent's id in your system: --uid U." });
    const languageOption = options["language-id"];
    if (languageOption === undefined)
      throw new UsageError("--language-id is required", { hint: "Pass the session's LanguageId: --language-id 3." });
    const languageId = parseNumberOption("language-id", languageOption, { integer: true, min: 0 });
    const device = options.device;
    if (device !== undefined && !devices.includes(device))
      throw new UsageError(`--device must be one of ${devices.join(", ")}, got "${device}"`);
    const returnUrl = options["return-url"];
    if (returnUrl !== undefined && !/^https?:\/\/[^\s#@]+$/i.test(returnUrl))
      throw new UsageError("--return-url must be an absolute http(s) URL without user@ or #fragment");
    const typed = options["sync-url"] ?? nonEmpty(io.env[SYNC_URL_ENV]);
    if (typed === undefined)
      throw new ConfigError("no sds-sync URL to start from", ExitCode.Usage, {
        hint: `Pass --sync-url or set ${SYNC_URL_ENV}: where respondents' browsers reach sds-sync.`,
      });
    const baseUrl = await normalizeBaseUrl(
      typed,
      options["sync-url"] === undefined ? SYNC_URL_ENV : "--sync-url",
      "Give sds-sync's public URL, such as https://sync.example.com.",
    );
    const secret = io.env[SESSION_SECRET_ENV] ?? "";
    if (secret !== "") context.registerSecret(secret);
    const { MIN_START_LINK_SECRET_LENGTH, signStartLink } = await import("@sds/routing");
    if (secret.length < MIN_START_LINK_SECRET_LENGTH)
      throw new ConfigError(
        secret === ""
          ? `${SESSION_SECRET_ENV} is not set`
          : `${SESSION_SECRET_ENV} is shorter than ${MIN_START_LINK_SECRET_LENGTH} characters`,
        ExitCode.Usage,
        {
          hint: `Set ${SESSION_SECRET_ENV} to the secret sds-sync runs with (${MIN_START_LINK_SECRET_LENGTH} characters or more).`,
        },
      );
    const link = signStartLink(
      {
        uid,
        languageId,
        ...(device === undefined ? {} : { device }),
        ...(returnUrl === undefined ? {} : { returnUrl }),
      },
      secret,
      { baseUrl },
    );
    await printLinkResult(context, link, { url: link, uid, languageId });
  },
});
