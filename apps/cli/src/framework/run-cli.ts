import { checkPositionals, parseCommandArguments, splitCommandWords, type ParsedArguments } from "./argv.ts";
import type { CommandCatalog, CommandContext, CommandDefinition, CommandEntry } from "./command.ts";
import { UsageError } from "./errors.ts";
import { ExitCode } from "./exit-codes.ts";
import { globalOptionSpecs, readGlobalOptions } from "./global-options.ts";
import { renderCommandHelp, renderGroupHelp, renderMainHelp } from "./help.ts";
import { writeText, type CliIo } from "./io.ts";
import { createOutput } from "./output.ts";
import { reportError } from "./report-error.ts";
import { decideStyles, type StreamStyles } from "./styles.ts";
import { closestMatch } from "./suggest.ts";
import { cliVersion } from "./version.ts";

/** How errors are reported: decided from the parsed command line, or from the environment before it is parsed. */
interface Presentation {
  readonly styles: StreamStyles;
  readonly debug: boolean;
}

/**
 * Runs one command line and returns the exit code. The single place where errors become
 * output: commands throw, this reports (one line, `--debug` for more) and maps to a code.
 * The command line is parsed once; colour and `--debug` are read from that parse and decided
 * once, then carried down in the command's context.
 */
export async function runCli(argv: readonly string[], io: CliIo, commands: CommandCatalog): Promise<ExitCode> {
  const secrets = new Set<string>();
  let presentation: Presentation = { styles: decideStyles(io, undefined), debug: false };
  const interruption = interruptOnSignals();
  try {
    const { words, rest } = splitCommandWords(argv, commands.isPrefix);
    const entry = words.length === 0 ? undefined : commands.find(words);
    const command = entry === undefined ? undefined : await entry.load();
    const parsed = parseCommandArguments(
      rest,
      command === undefined ? globalOptionSpecs : { ...globalOptionSpecs, ...command.options },
      words.join(" "),
    );
    presentation = {
      styles: decideStyles(io, parsed.values.color as boolean | undefined),
      debug: parsed.values.debug === true,
    };
    if (parsed.problem !== undefined) throw parsed.problem;
    if (entry === undefined || command === undefined)
      return await dispatchWithoutCommand(words, rest, parsed, io, commands, presentation.styles);
    return await dispatch(entry, command, parsed, {
      io,
      commands,
      signal: interruption.signal,
      styles: presentation.styles,
      registerSecret: (secret) => secrets.add(secret),
    });
  } catch (error) {
    return reportError(error, {
      stderr: io.stderr,
      styles: presentation.styles.stderr,
      debug: presentation.debug,
      secrets,
    });
  } finally {
    interruption.dispose();
  }
}

/** `sds`, `sds --version`, `sds GROUP`, or an unknown command. */
async function dispatchWithoutCommand(
  words: readonly string[],
  rest: readonly string[],
  parsed: ParsedArguments,
  io: CliIo,
  commands: CommandCatalog,
  styles: StreamStyles,
): Promise<ExitCode> {
  if (words.length === 0) {
    if (parsed.positionals.length > 0) throw unknownCommand(parsed.positionals, commands);
    await writeText(
      io.stdout,
      parsed.values.version === true ? `${cliVersion}\n` : renderMainHelp(cliVersion, commands, styles.stdout),
    );
    return ExitCode.Ok;
  }
  const [group] = words;
  if (words.length === 1 && group !== undefined && commands.groups.has(group)) {
    const stray = parsed.positionals[0];
    if (stray !== undefined) throw unknownCommand([group, stray], commands);
    await writeText(io.stdout, renderGroupHelp(group, commands, styles.stdout));
    return ExitCode.Ok;
  }
  // `sds acount show`: suggest from both words, so the suggestion is a whole command.
  const next = rest.find((token) => !token.startsWith("-"));
  throw unknownCommand(next === undefined ? words : [...words, next], commands);
}

/** What a command's context is made of, beyond its parsed arguments. */
interface RunEnvironment {
  readonly io: CliIo;
  readonly commands: CommandCatalog;
  readonly signal: AbortSignal;
  readonly styles: StreamStyles;
  readonly registerSecret: (secret: string) => void;
}

async function dispatch(
  entry: CommandEntry,
  command: CommandDefinition,
  parsed: ParsedArguments,
  environment: RunEnvironment,
): Promise<ExitCode> {
  const { io, styles } = environment;
  const { values, positionals } = parsed;
  if (values.help === true) {
    await writeText(io.stdout, renderCommandHelp(entry.path, command, styles.stdout));
    return ExitCode.Ok;
  }
  if (values.version === true) {
    await writeText(io.stdout, `${cliVersion}\n`);
    return ExitCode.Ok;
  }
  const commandName = entry.path.join(" ");
  checkPositionals(positionals, command.arguments ?? [], commandName);
  const globals = readGlobalOptions(values);
  const context: CommandContext = {
    commandPath: entry.path,
    // The parse kept only well-formed values of the command's specs, which is what OptionValues encodes.
    options: values as CommandContext["options"],
    positionals,
    globals,
    io,
    output: createOutput(io, globals, styles),
    commands: environment.commands,
    signal: environment.signal,
    registerSecret: environment.registerSecret,
  };
  await command.run(context);
  return ExitCode.Ok;
}

function unknownCommand(words: readonly string[], commands: CommandCatalog): UsageError {
  const typed = words.join(" ");
  const suggestion = closestMatch(
    typed,
    commands.entries.map((entry) => entry.path.join(" ")),
  );
  if (suggestion !== undefined)
    return new UsageError(`unknown command "${typed}"`, { hint: `Did you mean \`sds ${suggestion}\`?` });
  const first = words[0] ?? "";
  if (commands.groups.has(first))
    return new UsageError(`unknown command "${typed}"`, { hint: `Run \`sds help ${first}\` for its commands.` });
  const group = closestMatch(first, [...new Set(commands.entries.map((entry) => entry.path[0] as string))]);
  return new UsageError(`unknown command "${typed}"`, {
    hint: group === undefined ? "Run `sds --help` for the list of commands." : `Did you mean \`sds ${group}\`?`,
  });
}

/**
 * The first Ctrl-C (or SIGTERM) aborts the running command through its signal, so it can
 * stop cleanly (close the sandbox, remove a half-written export); a second one exits at once.
 */
function interruptOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(ExitCode.Interrupted);
    controller.abort(new InterruptedError(name));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** The reason of the abort signal: which signal interrupted the command. */
class InterruptedError extends Error {
  override name = "AbortError" as const;
  readonly signal: NodeJS.Signals;

  constructor(signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
    this.signal = signal;
  }
}
