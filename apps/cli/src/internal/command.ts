import type { CliIo } from "./io.ts";
import type { Output } from "./output.ts";
import type { GlobalOptionName, GlobalOptions } from "./global-options.ts";

/** One option of a command: what node:util `parseArgs` reads and what `sds help` prints. */
export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
  readonly multiple?: boolean;
  /** One line for `sds help`. */
  readonly description: string;
  /** The placeholder of the value in help, such as `URL`. @default "VALUE" */
  readonly valueName?: string;
  /** The accepted values; anything else is a usage error. Shell completion offers them. */
  readonly choices?: readonly string[];
  /** Also accept `--no-NAME` (boolean options only). */
  readonly negatable?: boolean;
  /** The value is a file path (shell completion offers files). */
  readonly isPath?: boolean;
  /** Left out of `sds help` (still parsed). */
  readonly hidden?: boolean;
}

/** The options of one command, keyed by long name without the dashes. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type OptionValue<Spec extends OptionSpec> = Spec["type"] extends "string"
  ? Spec["multiple"] extends true
    ? string[]
    : string
  : Spec["multiple"] extends true
    ? boolean[]
    : boolean;

/** The parsed values of {@link OptionSpecs}: `undefined` where the option was not given. */
export type OptionValues<Specs extends OptionSpecs> = { readonly [Name in keyof Specs]: OptionValue<Specs[Name]> | undefined };

/** A positional argument of a command. */
export interface ArgumentSpec {
  /** Upper-case placeholder, such as `SURVEY_ID`. */
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
  /** Takes all remaining words (last argument only). */
  readonly variadic?: boolean;
  /** The accepted values; anything else is a usage error. Shell completion offers them. */
  readonly choices?: readonly string[];
  /** Values shell completion offers, without restricting what is accepted. */
  readonly suggestions?: readonly string[];
}

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
export function defineCommand<const Specs extends OptionSpecs>(definition: CommandDefinition<Specs>): CommandDefinition<Specs> {
  return definition;
}
