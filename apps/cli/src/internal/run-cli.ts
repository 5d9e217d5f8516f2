import { commandEntries, commandGroups, findCommand, isCommandPrefix } from "../commands/registry.ts";
import { checkPositionals, parseCommandArguments, splitCommandWords } from "./argv.ts";
import type { CommandContext } from "./command.ts";
import { UsageError } from "./errors.ts";
import { ExitCode } from "./exit-codes.ts";
import { globalOptionSpecs, readGlobalOptions } from "./global-options.ts";
import { renderCommandHelp, renderGroupHelp, renderMainHelp } from "./help.ts";
import { writeText, type CliIo } from "./io.ts";
import { createOutput } from "./output.ts";
import { reportError } from "./report-error.ts";
import { createStyles, shouldColor } from "./styles.ts";
import { closestMatch } from "./suggest.ts";
import { cliVersion } from "./version.ts";

/**
 * Runs one command line and returns the exit code. The single place where errors become
 * output: commands throw, this reports (one line, `--debug` for more) and maps to a code.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const secrets = new Set<string>();
  // Read before parsing, so that a usage error is reported the way the user asked.
  const debug = argv.includes("--debug");
  const colorFlag = argv.includes("--no-color") ? false : argv.includes("--color") ? true : undefined;
  const stdoutStyles = createStyles(shouldColor(io.stdout, io.env, colorFlag));
  const interruption = interruptOnSignals();
  try {
    return await dispatch(argv, io, interruption.signal, secrets, stdoutStyles);
  } catch (error) {
    return reportError(error, { stderr: io.stderr, styles: createStyles(shouldColor(io.stderr, io.env, colorFlag)), debug, secrets });
  } finally {
    interruption.dispose();
  }
}

async function dispatch(argv: readonly string[], io: CliIo, signal: AbortSignal, secrets: Set<string>, styles: ReturnType<typeof createStyles>): Promise<ExitCode> {
  const { words, rest } = splitCommandWords(argv, isCommandPrefix);
  if (words.length === 0) {
    const { values, positionals } = parseCommandArguments(rest, globalOptionSpecs, "");
    if (positionals.length > 0) throw unknownCommand(positionals);
    await writeText(io.stdout, values.version === true ? `${cliVersion}\n` : renderMainHelp(cliVersion, styles));
    return ExitCode.Ok;
  }

  const entry = findCommand(words);
  if (entry === undefined) {
    const group = words[0] as string;
    if (words.length === 1 && group in commandGroups) {
      const stray = rest.find((token) => !token.startsWith("-"));
      if (stray !== undefined) throw unknownCommand([group, stray]);
      await writeText(io.stdout, renderGroupHelp(group, styles));
      return ExitCode.Ok;
    }
    // `sds acount show`: suggest from both words, so the suggestion is a whole command.
    const next = rest.find((token) => !token.startsWith("-"));
    throw unknownCommand(next === undefined ? words : [...words, next]);
  }

  const commandName = entry.path.join(" ");
  const command = await entry.load();
  const { values, positionals } = parseCommandArguments(rest, { ...globalOptionSpecs, ...command.options }, commandName);
  if (values.help === true) {
    await writeText(io.stdout, renderCommandHelp(entry.path, command, styles));
    return ExitCode.Ok;
  }
  if (values.version === true) {
    await writeText(io.stdout, `${cliVersion}\n`);
    return ExitCode.Ok;
  }
  checkPositionals(positionals, command.arguments ?? [], commandName);
  const globals = readGlobalOptions(values);
  const context: CommandContext = {
    commandPath: entry.path,
    // parseArgs checked every value against the command's specs, which is what OptionValues encodes.
    options: values as CommandContext["options"],
    positionals,
    globals,
    io,
    output: createOutput(io, globals),
    signal,
    registerSecret: (secret) => secrets.add(secret),
  };
  await command.run(context);
  return ExitCode.Ok;
}

function unknownCommand(words: readonly string[]): UsageError {
  const typed = words.join(" ");
  const suggestion = closestMatch(
    typed,
    commandEntries.map((entry) => entry.path.join(" ")),
  );
  if (suggestion !== undefined) return new UsageError(`unknown command "${typed}"`, { hint: `Did you mean \`sds ${suggestion}\`?` });
  const first = words[0] ?? "";
  if (first in commandGroups) return new UsageError(`unknown command "${typed}"`, { hint: `Run \`sds help ${first}\` for its commands.` });
  const group = closestMatch(first, [...new Set(commandEntries.map((entry) => entry.path[0] as string))]);
  return new UsageError(`unknown command "${typed}"`, { hint: group === undefined ? "Run `sds --help` for the list of commands." : `Did you mean \`sds ${group}\`?` });
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
