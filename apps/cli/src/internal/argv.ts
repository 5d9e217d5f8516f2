import { parseArgs } from "node:util";
import type { ArgumentSpec, OptionSpec, OptionSpecs } from "./command.ts";
import { UsageError } from "./errors.ts";
import { globalOptionSpecs } from "./global-options.ts";
import { closestMatch } from "./suggest.ts";

/** The command words of a command line, and everything else (options and positionals). */
export interface SplitArguments {
  /** Leading words that name a command (or a group), such as `["surveys", "show"]`. */
  readonly words: readonly string[];
  /** The rest, in order, for `parseArgs`. */
  readonly rest: readonly string[];
}

const globalOptionsTakingValues = new Set(
  Object.entries(globalOptionSpecs as OptionSpecs).flatMap(([name, spec]) =>
    spec.type === "string" ? [`--${name}`, ...(spec.short === undefined ? [] : [`-${spec.short}`])] : [],
  ),
);

/**
 * Separates the words naming the command from its options and positionals. Global options may
 * come before the command (`sds --debug surveys list`); a word joins the command while the
 * words so far still start the path of some command, so `sds surveys show 42` names
 * `surveys show` and leaves `42` as a positional.
 */
export function splitCommandWords(argv: readonly string[], isCommandPrefix: (words: readonly string[]) => boolean): SplitArguments {
  const words: string[] = [];
  const rest: string[] = [];
  let commandDone = false;
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index] as string;
    if (token === "--") {
      rest.push(...argv.slice(index));
      break;
    }
    if (token.startsWith("-") && token !== "-") {
      rest.push(token);
      // A global option's value must not be mistaken for a command word.
      if (globalOptionsTakingValues.has(token) && index + 1 < argv.length) {
        rest.push(argv[++index] as string);
      }
      continue;
    }
    if (!commandDone && (words.length === 0 || isCommandPrefix([...words, token]))) {
      words.push(token);
    } else {
      commandDone = true;
      rest.push(token);
    }
  }
  return { words, rest };
}

/** Options and positionals after parsing. */
export interface ParsedArguments {
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parses options and positionals strictly with node:util `parseArgs` (no dependency, nothing
 * to load at start-up) and turns its errors into {@link UsageError}s that name the command.
 */
export function parseCommandArguments(args: readonly string[], options: OptionSpecs, commandName: string): ParsedArguments {
  const config: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(options)) {
    config[name] = { type: spec.type, ...(spec.short === undefined ? {} : { short: spec.short }), ...(spec.multiple === true ? { multiple: true } : {}) };
  }
  let parsed: ParsedArguments;
  try {
    parsed = parseArgs({ args: [...args], options: config, strict: true, allowPositionals: true, allowNegative: true });
  } catch (error) {
    throw usageErrorFromParseArgs(error, options, commandName);
  }
  for (const [name, value] of Object.entries(parsed.values)) {
    const spec = options[name] as OptionSpec;
    checkOptionValue(name, spec, value);
  }
  return parsed;
}

function checkOptionValue(name: string, spec: OptionSpec, value: unknown): void {
  if (spec.type === "boolean" && value === false && spec.negatable !== true) {
    throw new UsageError(`--no-${name} is not an option; leave out --${name} instead`);
  }
  if (spec.choices === undefined) return;
  for (const item of Array.isArray(value) ? value : [value]) {
    if (typeof item === "string" && !spec.choices.includes(item)) {
      const suggestion = closestMatch(item, spec.choices);
      throw new UsageError(`--${name} must be one of ${spec.choices.join(", ")}; got "${item}"`, suggestion === undefined ? {} : { hint: `Did you mean "${suggestion}"?` });
    }
  }
}

function usageErrorFromParseArgs(error: unknown, options: OptionSpecs, commandName: string): Error {
  if (!(error instanceof TypeError) || !("code" in error) || typeof error.code !== "string" || !error.code.startsWith("ERR_PARSE_ARGS")) {
    return error instanceof Error ? error : new Error(String(error));
  }
  const help = { hint: `Run \`sds help ${commandName}\` for its options.` };
  const option = /'(-[^'\s]*)/.exec(error.message)?.[1];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const known = Object.keys(options).map((name) => `--${name}`);
      const suggestion = option === undefined ? undefined : closestMatch(option.replace(/=.*$/, ""), known);
      return new UsageError(`unknown option ${option ?? ""} for \`sds ${commandName}\``, suggestion === undefined ? help : { hint: `Did you mean ${suggestion}?` });
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return new UsageError(describeInvalidValue(error.message, options), help);
    default:
      return new UsageError(error.message.split("\n")[0] ?? error.message, help);
  }
}

function describeInvalidValue(message: string, options: OptionSpecs): string {
  const name = /--([\w-]+)/.exec(message)?.[1];
  const spec = name === undefined ? undefined : options[name];
  if (name !== undefined && spec?.type === "string") return `--${name} needs a value (${spec.valueName ?? "VALUE"})`;
  if (name !== undefined) return `--${name} takes no value`;
  return message.split("\n")[0] ?? message;
}

/**
 * Checks the number of positionals against a command's arguments.
 *
 * @throws UsageError naming the missing or surplus argument.
 */
export function checkPositionals(positionals: readonly string[], specs: readonly ArgumentSpec[], commandName: string): void {
  const hint = { hint: `Run \`sds help ${commandName}\` for its usage.` };
  const required = specs.filter((spec) => spec.optional !== true);
  if (positionals.length < required.length) {
    const missing = required[positionals.length] as ArgumentSpec;
    throw new UsageError(`\`sds ${commandName}\` needs ${missing.name} (${missing.description})`, hint);
  }
  if (positionals.length > specs.length && specs.at(-1)?.variadic !== true) {
    throw new UsageError(`unexpected argument "${positionals[specs.length] ?? ""}" for \`sds ${commandName}\``, hint);
  }
  positionals.forEach((value, index) => {
    const spec = specs[Math.min(index, specs.length - 1)] as ArgumentSpec;
    if (spec.choices !== undefined && !spec.choices.includes(value)) {
      const suggestion = closestMatch(value, spec.choices);
      throw new UsageError(
        `${spec.name} must be one of ${spec.choices.join(", ")}; got "${value}"`,
        suggestion === undefined ? hint : { hint: `Did you mean "${suggestion}"?` },
      );
    }
  });
}
