import type { CommandDefinition } from "../internal/command.ts";

/** One command as the entry point knows it before loading it: its words, a summary, a loader. */
export interface CommandEntry {
  /** The words that name it, such as `["surveys", "list"]`. */
  readonly path: readonly string[];
  /** One line for `sds --help`. */
  readonly summary: string;
  /**
   * Loads the command's module. A dynamic import, so that each command (and the client it
   * needs) is a chunk of its own and `sds --version` loads none of them.
   */
  readonly load: () => Promise<CommandDefinition>;
}

/** The command groups, with the line `sds --help` and `sds GROUP` print for each. */
export const commandGroups: Readonly<Record<string, string>> = {
  account: "Read and update the supplier account",
  surveys: "List live surveys and read their details",
  recontacts: "Re-contact respondents of a survey",
  collections: "Reference collections (languages, industries, …)",
};

/** Every command of `sds`, in the order `sds --help` lists them. */
export const commandEntries: readonly CommandEntry[] = [
  { path: ["account", "show"], summary: "Show the supplier account (encryption keys masked)", load: async () => (await import("./account-show.ts")).command },
  { path: ["account", "set-redirects"], summary: "Update the redirect URLs", load: async () => (await import("./account-set-redirects.ts")).command },
  { path: ["account", "set-s2s"], summary: "Update the server-to-server (S2S) redirect URLs", load: async () => (await import("./account-set-s2s.ts")).command },
  { path: ["surveys", "list"], summary: "List live surveys, with filters, sorting and field selection", load: async () => (await import("./surveys-list.ts")).command },
  { path: ["surveys", "show"], summary: "Show a survey with its qualifications and quotas", load: async () => (await import("./surveys-show.ts")).command },
  { path: ["surveys", "qualifications"], summary: "List a survey's qualifications", load: async () => (await import("./surveys-qualifications.ts")).command },
  { path: ["surveys", "quotas"], summary: "List a survey's quotas", load: async () => (await import("./surveys-quotas.ts")).command },
  { path: ["surveys", "stats"], summary: "Show a survey's stats", load: async () => (await import("./surveys-stats.ts")).command },
  { path: ["surveys", "groups"], summary: "List a survey's groups", load: async () => (await import("./surveys-groups.ts")).command },
  { path: ["recontacts", "list"], summary: "List the re-contact respondents of a survey", load: async () => (await import("./recontacts-list.ts")).command },
  { path: ["collections"], summary: "List a reference collection (languages, industries, …)", load: async () => (await import("./collections.ts")).command },
  { path: ["collections", "qualification"], summary: "Show one qualification question with its options", load: async () => (await import("./collections-qualification.ts")).command },
  { path: ["export"], summary: "Export all live surveys with qualifications and quotas", load: async () => (await import("./export.ts")).command },
  { path: ["doctor"], summary: "Check configuration, reachability, the key, latency and clock skew", load: async () => (await import("./doctor.ts")).command },
  { path: ["login"], summary: "Save a base URL and API key as a profile", load: async () => (await import("./login.ts")).command },
  { path: ["logout"], summary: "Delete a saved profile", load: async () => (await import("./logout.ts")).command },
  { path: ["sandbox"], summary: "Run a local fake of the service to try things against", load: async () => (await import("./sandbox.ts")).command },
  { path: ["completion"], summary: "Print a shell completion script (bash, zsh, fish)", load: async () => (await import("./completion.ts")).command },
  { path: ["help"], summary: "Show help for a command", load: async () => (await import("./help.ts")).command },
];

/** The entry whose words are exactly `words`, if any. */
export function findCommand(words: readonly string[]): CommandEntry | undefined {
  return commandEntries.find((entry) => entry.path.length === words.length && entry.path.every((word, index) => word === words[index]));
}

/** Whether `words` start the path of at least one command (`["surveys"]` does). */
export function isCommandPrefix(words: readonly string[]): boolean {
  return commandEntries.some((entry) => words.length <= entry.path.length && words.every((word, index) => entry.path[index] === word));
}

/** The entries under a group word, such as every `surveys …` command. */
export function commandsInGroup(group: string): readonly CommandEntry[] {
  return commandEntries.filter((entry) => entry.path[0] === group && entry.path.length > 1);
}
