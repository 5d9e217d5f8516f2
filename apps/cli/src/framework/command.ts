import type { GlobalOptionName, GlobalOptions } from "./global-options.ts";
import type { CliIo } from "./io.ts";
import type { ArgumentSpec, OptionSpecs, OptionValues } from "./option-spec.ts";
import type { Output } from "./output.ts";

export type { ArgumentSpec, OptionSpec, OptionSpecs, OptionValues } from "./option-spec.ts";

/** An example in `sds help COMMAND`. */
export interface CommandExample {
  /** The command line without the leading `sds `. */
  readonly command: string;
  readonly description: string;
}

/** What a command receives: its parsed arguments and the world it runs in. */
export interface CommandContext<Specs extends OptionSpecs = OptionSpecs> {
  /** The words that named the command, such as `["surveys", "list"]`. */
  readonly commandPath: readonly string[];
  readonly options: OptionValues<Specs>;
  /** Positional arguments, already checked against the command's {@link ArgumentSpec}s. */
  readonly positionals: readonly string[];
  readonly globals: GlobalOptions;
  readonly io: CliIo;
  readonly output: Output;
  /** Every command of sds, for the commands that describe the others (`help`, `completion`). */
  readonly commands: CommandCatalog;
  /** Aborted on the first Ctrl-C (SIGINT) or SIGTERM. */
  readonly signal: AbortSignal;
  /**
   * Registers a secret (the API key) that must never be printed: the entry point replaces it
   * in anything it writes about an error.
   */
  registerSecret(secret: string): void;
}

/** One command of `sds`: its help, its options and what it does. */
export interface CommandDefinition<Specs extends OptionSpecs = OptionSpecs> {
  /** A paragraph for `sds help COMMAND`, below the usage line. */
  readonly description: string;
  readonly arguments?: readonly ArgumentSpec[];
  readonly options: Specs;
  readonly examples: readonly CommandExample[];
  /**
   * The global options that mean something to this command, for its help (all are accepted).
   * @default every global option
   */
  readonly globalOptions?: readonly GlobalOptionName[];
  /** Does the work; throws a typed error on failure, which the entry point reports. */
  run(context: CommandContext<Specs>): Promise<void>;
}

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

/** The command table with its lookups (see `commands/registry.ts`). */
export interface CommandCatalog {
  /** The group words (`surveys`), each with the line `sds --help` and `sds GROUP` print. */
  readonly groups: ReadonlyMap<string, string>;
  /** Every command, in the order `sds --help` lists them. */
  readonly entries: readonly CommandEntry[];
  /** The entry whose words are exactly `words`, if any. */
  readonly find: (words: readonly string[]) => CommandEntry | undefined;
  /** Whether `words` start the path of at least one command (`["surveys"]` does). */
  readonly isPrefix: (words: readonly string[]) => boolean;
  /** The entries under a group word, such as every `surveys …` command. */
  readonly inGroup: (group: string) => readonly CommandEntry[];
}

/**
 * Declares a command; the identity function, there so that the option values are typed from
 * the option specs.
 *
 * @example
 * ```ts
 * export const command = defineCommand({
 *   description: "Show the account.",
 *   options: { "reveal-secrets": { type: "boolean", description: "Show encryption keys" } },
 *   examples: [{ command: "account show", description: "Show the account" }],
 *   async run(context) { context.options["reveal-secrets"]; },
 * });
 * ```
 */
export function defineCommand<const Specs extends OptionSpecs>(
  definition: CommandDefinition<Specs>,
): CommandDefinition<Specs> {
  return definition;
}
