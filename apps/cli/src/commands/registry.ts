import type { CommandCatalog, CommandEntry } from "../framework/command.ts";
import { createCommandCatalog } from "../framework/command-catalog.ts";

/*
 * The command table: one entry per command, one file per command. To add a command, write
 * `commands/NAME.ts` exporting `command = defineCommand({…})` and add its line below (and its
 * group, if new). Commands never import this module: `help` and `completion` read the table
 * from their context, which keeps this module a leaf of the import graph.
 */

/** The command groups, with the line `sds --help` and `sds GROUP` print for each. */
const groups = {
  account: "Read and update the supplier account",
  surveys: "List live surveys and read their details",
  recontacts: "Re-contact respondents of a survey",
  link: "Sign, verify and build respondent links",
  collections: "Reference collections (languages, industries, …)",
  auth: "Saved profiles and where the API key comes from",
  outcomes: "sds-sync's outcome feed, and corrections of outcomes",
  sync: "sds-sync itself: health, role, last cycle, money",
  respondents: "Respondents' history in sds-sync",
  sessions: "Respondents' sessions in sds-sync: the next question, survey or end",
  webhooks: "Check the webhooks sds-sync sends",
};

/** Every command of `sds`, in the order `sds --help` lists them. */
const entries: readonly CommandEntry[] = [
  {
    path: ["account", "show"],
    summary: "Show the supplier account (encryption keys masked)",
    load: async () => (await import("./account/show.ts")).command,
  },
  {
    path: ["account", "set-redirects"],
    summary: "Update the redirect URLs",
    load: async () => (await import("./account/set-redirects.ts")).command,
  },
  {
    path: ["account", "set-s2s"],
    summary: "Update the server-to-server (S2S) redirect URLs",
    load: async () => (await import("./account/set-s2s.ts")).command,
  },
  {
    path: ["surveys", "list"],
    summary: "List live surveys, with filters, sorting and field selection",
    load: async () => (await import("./surveys/list.ts")).command,
  },
  {
    path: ["surveys", "show"],
    summary: "Show a survey with its qualifications and quotas",
    load: async () => (await import("./surveys/show.ts")).command,
  },
  {
    path: ["surveys", "qualifications"],
    summary: "List a survey's qualifications",
    load: async () => (await import("./surveys/qualifications.ts")).command,
  },
  {
    path: ["surveys", "quotas"],
    summary: "List a survey's quotas",
    load: async () => (await import("./surveys/quotas.ts")).command,
  },
  {
    path: ["surveys", "stats"],
    summary: "Show a survey's stats",
    load: async () => (await import("./surveys/stats.ts")).command,
  },
  {
    path: ["surveys", "groups"],
    summary: "List a survey's groups",
    load: async () => (await import("./surveys/groups.ts")).command,
  },
  {
    path: ["link", "sign"],
    summary: "Sign a URL with the account's IncomingEncryption key (--encryption outgoing for the other)",
    load: async () => (await import("./link/sign.ts")).command,
  },
  {
    path: ["link", "verify"],
    summary: "Check a signed URL (the OutgoingEncryption key by default): exit 0 when valid, 1 when not",
    load: async () => (await import("./link/verify.ts")).command,
  },
  {
    path: ["link", "calibrate"],
    summary: "Find the scheme a known-good signed URL was signed with",
    load: async () => (await import("./link/calibrate.ts")).command,
  },
  {
    path: ["link", "entry"],
    summary: "Print a survey's entry link, placeholders filled and signed",
    load: async () => (await import("./link/entry.ts")).command,
  },
  {
    path: ["link", "start"],
    summary: "Print a signed start link of sds-sync's respondent page (SYNC_SESSION_SECRET from the environment)",
    load: async () => (await import("./link/start.ts")).command,
  },
  {
    path: ["recontacts", "list"],
    summary: "List the re-contact respondents of a survey",
    load: async () => (await import("./recontacts/list.ts")).command,
  },
  {
    path: ["collections"],
    summary: "List a reference collection (languages, industries, …), or without NAME their names",
    load: async () => (await import("./collections/collections.ts")).command,
  },
  {
    path: ["collections", "qualification"],
    summary: "Show one qualification question with its options",
    load: async () => (await import("./collections/qualification.ts")).command,
  },
  {
    path: ["outcomes", "reconcile"],
    summary: "Send the marketplace's corrections of outcomes (CSV) to sds-sync",
    load: async () => (await import("./outcomes/reconcile.ts")).command,
  },
  {
    path: ["outcomes", "tail"],
    summary: "Print sds-sync's outcome feed; --follow prints outcomes as they are recorded",
    load: async () => (await import("./outcomes/tail.ts")).command,
  },
  {
    path: ["sync", "status"],
    summary: "Show sds-sync's health, role, last cycle and money",
    load: async () => (await import("./sync/status.ts")).command,
  },
  {
    path: ["match"],
    summary: "Ask sds-sync which live surveys a respondent qualifies for",
    load: async () => (await import("./match/match.ts")).command,
  },
  {
    path: ["sessions", "start"],
    summary: "Begin a respondent's session in sds-sync and show its first step",
    load: async () => (await import("./sessions/start.ts")).command,
  },
  {
    path: ["sessions", "show"],
    summary: "Show a session and its next step (--explain: what it was chosen from)",
    load: async () => (await import("./sessions/show.ts")).command,
  },
  {
    path: ["sessions", "answer"],
    summary: "Send the respondent's answers to a session's question and show the next step",
    load: async () => (await import("./sessions/answer.ts")).command,
  },
  {
    path: ["sessions", "end"],
    summary: "End a respondent's session",
    load: async () => (await import("./sessions/end.ts")).command,
  },
  {
    path: ["respondents", "import"],
    summary: "Send respondents' entries made elsewhere (CSV or JSON Lines) to sds-sync",
    load: async () => (await import("./respondents/import.ts")).command,
  },
  {
    path: ["webhooks", "verify"],
    summary: "Check a received webhook's signature (Standard Webhooks): exit 0 when valid, 1 when not",
    load: async () => (await import("./webhooks/verify.ts")).command,
  },
  {
    path: ["export"],
    summary: "Export all live surveys with qualifications and quotas",
    load: async () => (await import("./export/export.ts")).command,
  },
  {
    path: ["doctor"],
    summary: "Check configuration, reachability, the key, latency and clock skew",
    load: async () => (await import("./doctor.ts")).command,
  },
  {
    path: ["login"],
    summary: "Save a base URL and API key as a profile",
    load: async () => (await import("./login.ts")).command,
  },
  { path: ["logout"], summary: "Delete a saved profile", load: async () => (await import("./logout.ts")).command },
  {
    path: ["auth", "status"],
    summary: "List saved profiles, the active one, and where its key comes from",
    load: async () => (await import("./auth/status.ts")).command,
  },
  {
    path: ["sandbox"],
    summary: "Run a local fake of the service to try things against",
    load: async () => (await import("./sandbox.ts")).command,
  },
  {
    path: ["completion"],
    summary: "Print a shell completion script (bash, zsh, fish)",
    load: async () => (await import("./completion.ts")).command,
  },
  { path: ["help"], summary: "Show help for a command", load: async () => (await import("./help.ts")).command },
];

/** Every command of `sds` and its lookups. */
export const commandCatalog: CommandCatalog = createCommandCatalog(groups, entries);
