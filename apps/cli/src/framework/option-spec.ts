// The shapes of options and arguments: a leaf module, so that the global options, the parser
// and the command definitions can all use them without importing one another.

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
export type OptionValues<Specs extends OptionSpecs> = {
  readonly [Name in keyof Specs]: OptionValue<Specs[Name]> | undefined;
};

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
