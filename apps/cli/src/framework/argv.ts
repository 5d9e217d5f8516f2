import { parseArgs } from "node:util";
import type { ArgumentSpec, OptionSpec, OptionSpecs } from "./option-spec.ts";
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
export function splitCommandWords(
  argv: readonly string[],
  isCommandPrefix: (words: readonly string[]) => boolean,
): SplitArguments {
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
  /** The values of the known options that were well formed. */
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  readonly positionals: readonly string[];
  /**
   * The first thing wrong with the command line, if any. Returned rather than thrown, so that
   * the caller can first read from `values` how the user wants it reported (`--no-color`,
   * `--debug`) and then throw it.
   */
  readonly problem: UsageError | undefined;
}

type ParsedToken = ReturnType<
  typeof parseArgs<{ tokens: true; allowPositionals: true; strict: false }>
>["tokens"][number];
type OptionToken = Extract<ParsedToken, { kind: "option" }>;

/**
 * Parses options and positionals once with node:util `parseArgs` (no dependency, nothing to
 * load at start-up), then checks its tokens as strictly as `parseArgs`' strict mode would, with
 * messages that name the command: unknown options, missing values, values given to flags,
 * `--no-` of a flag that has none, values outside an option's choices.
 */
export function parseCommandArguments(
  args: readonly string[],
  options: OptionSpecs,
  commandName: string,
): ParsedArguments {
  const config: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(options)) {
    config[name] = {
      type: spec.type,
      ...(spec.short === undefined ? {} : { short: spec.short }),
      ...(spec.multiple === true ? { multiple: true } : {}),
    };
  }
  const parsed = parseArgs({
    args: [...args],
    options: config,
    strict: false,
    allowPositionals: true,
    allowNegative: true,
    tokens: true,
  });
  let problem: UsageError | undefined;
  for (const token of parsed.tokens) {
    if (token.kind === "option") problem ??= optionTokenProblem(token, options, commandName);
  }
  const values: Record<string, string | boolean | (string | boolean)[] | undefined> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    const spec = Object.hasOwn(options, name) ? options[name] : undefined;
    if (spec === undefined || !hasType(value, spec)) continue;
    values[name] = value;
    problem ??= choiceProblem(name, spec, value, options);
  }
  return { values, positionals: parsed.positionals, problem };
}

function hasType(value: unknown, spec: OptionSpec): boolean {
  const type = spec.type === "string" ? "string" : "boolean";
  return spec.multiple === true
    ? Array.isArray(value) && value.every((item) => typeof item === type)
    : typeof value === type;
}

function optionTokenProblem(token: OptionToken, options: OptionSpecs, commandName: string): UsageError | undefined {
  const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
  const negated = token.rawName.startsWith("--no-") && token.rawName !== `--${token.name}`;
  if (spec === undefined) {
    const secretFlag = secretOnCommandLineProblem(token.name, options, commandName);
    if (secretFlag !== undefined) return secretFlag;
    const typed = token.rawName.startsWith("--") && token.inlineValue === true ? `${token.rawName}=` : token.rawName;
    const suggestion = closestMatch(
      token.rawName,
      Object.keys(options).map((name) => `--${name}`),
    );
    const hint =
      suggestion === undefined ? `Run \`sds help ${commandName}\` for its options.` : `Did you mean ${suggestion}?`;
    return new UsageError(`unknown option ${typed.replace(/=$/, "")} for \`sds ${commandName}\``, { hint });
  }
  const help = { hint: `Run \`sds help ${commandName}\` for its options.` };
  if (negated && (spec.type !== "boolean" || spec.negatable !== true)) {
    return new UsageError(
      spec.type === "boolean"
        ? `--no-${token.name} is not an option; leave out --${token.name} instead`
        : `--no-${token.name} is not an option`,
      help,
    );
  }
  if (spec.type === "boolean")
    return token.value === undefined ? undefined : new UsageError(`--${token.name} takes no value`, help);
  // A value that looks like an option (`--base-url --debug`) is a forgotten value, as parseArgs' strict mode has it.
  const needsValue = `--${token.name} needs a value (${spec.valueName ?? "VALUE"})`;
  if (token.value === undefined) return new UsageError(needsValue, help);
  if (!token.inlineValue && token.value.length > 1 && token.value.startsWith("-")) {
    return new UsageError(needsValue, {
      hint: `To give a value that starts with a dash, write --${token.name}=${token.value}.`,
    });
  }
  return undefined;
}

/**
 * The options that would carry a secret on the command line, and the safe way each command
 * offers instead: `--api-key` (every command reads standard input or the environment) and, for
 * the `link` commands, `--key`, and for the commands calling sds-sync, `--sync-token`. A flag value is in shell history and in `ps` for everyone on
 * the machine, which is why these options do not exist.
 */
function secretOnCommandLineProblem(name: string, options: OptionSpecs, commandName: string): UsageError | undefined {
  if (name === "key" && Object.hasOwn(options, "key-stdin")) {
    return new UsageError(
      `\`sds ${commandName}\` takes no --key: a key on the command line ends up in shell history and in \`ps\``,
      {
        hint: "Pipe the EncryptionKey to --key-stdin, or set SDS_ENCRYPTION_KEY.",
      },
    );
  }
  if ((name === "sync-token" || name === "token") && Object.hasOwn(options, "sync-token-stdin")) {
    return new UsageError(
      `\`sds ${commandName}\` takes no --${name}: a token on the command line ends up in shell history and in \`ps\``,
      {
        hint: "Pipe it to --sync-token-stdin, or set SYNC_API_TOKEN.",
      },
    );
  }
  if (name === "api-key" || name === "apikey" || name === "token") {
    return new UsageError(`sds takes no --${name}: a key on the command line ends up in shell history and in \`ps\``, {
      hint: "Pipe it to --api-key-stdin (`pass show sds | sds … --api-key-stdin`), set SDS_API_KEY, or save it with `sds login`.",
    });
  }
  return undefined;
}

function choiceProblem(name: string, spec: OptionSpec, value: unknown, options: OptionSpecs): UsageError | undefined {
  if (spec.choices === undefined) return undefined;
  for (const item of Array.isArray(value) ? value : [value]) {
    if (typeof item === "string" && !spec.choices.includes(item)) {
      const message = `--${name} must be one of ${spec.choices.join(", ")}; got "${item}"`;
      // `-o surveys.csv`: a file name where the format goes, as in tools where -o means the output file.
      if (name === "output" && /[./\\]/.test(item)) {
        const format = spec.choices.find((choice) => item.toLowerCase().endsWith(`.${choice}`)) ?? "csv";
        const hint = Object.hasOwn(options, "out")
          ? `-o/--output is the format, not a file; to write to a file, use --out ${item}.`
          : `-o/--output is the format, not a file; redirect to write one: \`-o ${format} > ${item}\`.`;
        return new UsageError(message, { hint });
      }
      const suggestion = closestMatch(item, spec.choices);
      return new UsageError(message, suggestion === undefined ? {} : { hint: `Did you mean "${suggestion}"?` });
    }
  }
  return undefined;
}

/**
 * Checks the number of positionals against a command's arguments.
 *
 * @throws UsageError naming the missing or surplus argument.
 */
export function checkPositionals(
  positionals: readonly string[],
  specs: readonly ArgumentSpec[],
  commandName: string,
): void {
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
