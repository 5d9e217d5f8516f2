import { readFile } from "node:fs/promises";
import type { CommandContext } from "./command.ts";
import { CliError, UsageError } from "./errors.ts";
import { ExitCode } from "./exit-codes.ts";
import { readStdinText } from "./stdin.ts";

/** A line of an input file that cannot be sent, and why. */
export interface LineProblem {
  readonly line: number;
  readonly message: string;
}

/** The most problems listed before `… and N more`: enough to see the pattern, not a second copy of the file. */
const listedProblems = 50;

/** How an input file is named in messages: `-` is standard input. */
export function inputName(path: string): string {
  return path === "-" ? "standard input" : path;
}

/**
 * The whole text of the file at `path`, or of standard input for `-`.
 *
 * @throws CliError (exit 2) when it cannot be read.
 */
export async function readInputText(context: CommandContext, path: string): Promise<string> {
  try {
    return path === "-" ? await readStdinText(context.io.stdin) : await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, ExitCode.Usage, { cause: error });
  }
}

/**
 * Lists every problem on stderr as `FILE:LINE: message` (the form editors jump to) and throws
 * the one-line error the entry point prints after them: nothing was sent.
 *
 * @throws UsageError (exit 2) always, when there are problems.
 */
export function refuseInvalidLines(context: CommandContext, path: string, problems: readonly LineProblem[]): void {
  if (problems.length === 0) return;
  const name = path === "-" ? "stdin" : path;
  for (const problem of problems.slice(0, listedProblems))
    context.io.stderr.write(`${name}:${problem.line}: ${problem.message}\n`);
  if (problems.length > listedProblems) context.io.stderr.write(`… and ${problems.length - listedProblems} more\n`);
  const count = problems.length === 1 ? "1 invalid line" : `${problems.length} invalid lines`;
  throw new UsageError(`${inputName(path)} has ${count} (listed above); nothing was sent`, {
    hint: "Fix them and run the command again.",
  });
}
