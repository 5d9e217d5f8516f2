import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { CommandContext } from "./command.ts";
import { CliError, UsageError } from "./errors.ts";
import { ExitCode } from "./exit-codes.ts";
import { readStdinText } from "./stdin.ts";

/** A line of an input file that cannot be sent, and why. */
export interface LineProblem {
  readonly line: number;
  readonly message: string;
}

/** A line of an input file, checked: the item it holds, or what is wrong with it. */
export type CheckedLine<Item> =
  { readonly line: number; readonly item: Item } | { readonly line: number; readonly problem: string };

/** Reads a stream of text as checked lines, as they are read (`readCheckedCsv`, a JSON Lines reader). */
export type LineChecker<Item> = (chunks: AsyncIterable<string>) => AsyncIterable<CheckedLine<Item>>;

/** The most problems listed before `… and N more`: enough to see the pattern, not a second copy of the file. */
const listedProblems = 50;

/** How many characters a chunk of a file holds: memory per chunk, not per file. */
const chunkSize = 64 * 1024;

/** How an input file is named in messages: `-` is standard input. */
export function inputName(path: string): string {
  return path === "-" ? "standard input" : path;
}

/**
 * An input file that can be read as a stream of text more than once (checked, then sent):
 * the file at `path`, or standard input for `-`, kept in a temporary file while it is read.
 */
export interface InputFile {
  /** The path as given (`-` for standard input). */
  readonly path: string;
  /** The text in chunks of at most 64 KiB, from the start. @throws CliError (exit 2) when it cannot be read. */
  chunks(): AsyncIterable<string>;
  /** Removes the copy of standard input, if any. */
  close(): Promise<void>;
}

/**
 * Opens `path` (or standard input for `-`) to be read as a stream, as often as needed.
 * Standard input is copied to a temporary file as it arrives: it can be read only once.
 *
 * @throws CliError (exit 2) when standard input cannot be read.
 */
export async function openInputFile(context: CommandContext, path: string): Promise<InputFile> {
  if (path !== "-") return { path, chunks: () => fileChunks(path, path), close: () => Promise.resolve() };
  const directory = await mkdtemp(join(tmpdir(), "sds-input-"));
  const copy = join(directory, "stdin");
  try {
    await pipeline(context.io.stdin, createWriteStream(copy, { mode: 0o600 }));
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw new CliError(`cannot read standard input: ${(error as Error).message}`, ExitCode.Usage, { cause: error });
  }
  return {
    path,
    chunks: () => fileChunks(copy, "standard input"),
    close: () => rm(directory, { recursive: true, force: true }),
  };
}

async function* fileChunks(file: string, name: string): AsyncGenerator<string, void, undefined> {
  try {
    // The decoder of a stream with an encoding keeps a character cut between chunks whole.
    for await (const chunk of createReadStream(file, { encoding: "utf8", highWaterMark: chunkSize }))
      yield chunk as string;
  } catch (error) {
    throw new CliError(`cannot read ${name}: ${(error as Error).message}`, ExitCode.Usage, { cause: error });
  }
}

/**
 * The whole text of the file at `path`, or of standard input for `-`: for a small input (a
 * webhook's body). A file of records is read as a stream ({@link openInputFile},
 * {@link checkInputFile}).
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

/** An input file whose every line was checked: how many items it holds, and the items, read again as a stream. */
export interface CheckedInput<Item> {
  /** How many items the file holds (lines with an item; blank lines hold none). */
  readonly count: number;
  /** The items in order, read again from the file. */
  items(): AsyncIterable<Item>;
  /** Removes the copy of standard input, if any. */
  close(): Promise<void>;
}

/**
 * Reads `input` once to the end with `check`, keeping only a count and the first problems (so
 * memory stays flat however long the file is), and refuses the file if any line has a problem:
 * nothing is sent unless every line is valid. Then its items can be read again, as a stream,
 * to be sent in batches. `observe` sees each item of that first reading, in order (a digest of
 * the content, say), so that it too needs no second copy of the file.
 *
 * @throws UsageError (exit 2) when a line has a problem (listed on stderr as `FILE:LINE: message`).
 */
export async function checkInputFile<Item>(
  context: CommandContext,
  input: InputFile,
  check: LineChecker<Item>,
  observe?: (item: Item) => void,
): Promise<CheckedInput<Item>> {
  let count = 0;
  let problemCount = 0;
  const problems: LineProblem[] = [];
  for await (const checked of check(input.chunks())) {
    if ("item" in checked) {
      count += 1;
      observe?.(checked.item);
    } else if (problemCount++ < listedProblems) problems.push({ line: checked.line, message: checked.problem });
  }
  refuseInvalidLines(context, input.path, problems, problemCount);
  return {
    count,
    async *items() {
      for await (const checked of check(input.chunks())) {
        if ("item" in checked) yield checked.item;
        else
          throw new CliError(
            `${inputName(input.path)} changed while it was sent: line ${checked.line} ${checked.problem}`,
            ExitCode.Usage,
            { hint: "Send a file nothing writes to." },
          );
      }
    },
    close: () => input.close(),
  };
}

/**
 * Lists every problem on stderr as `FILE:LINE: message` (the form editors jump to) and throws
 * the one-line error the entry point prints after them: nothing was sent. `total` counts
 * problems beyond those given (a stream keeps only the first few).
 *
 * @throws UsageError (exit 2) always, when there are problems.
 */
export function refuseInvalidLines(
  context: CommandContext,
  path: string,
  problems: readonly LineProblem[],
  total = problems.length,
): void {
  if (total === 0) return;
  const name = path === "-" ? "stdin" : path;
  for (const problem of problems.slice(0, listedProblems))
    context.io.stderr.write(`${name}:${problem.line}: ${problem.message}\n`);
  const listed = Math.min(problems.length, listedProblems);
  if (total > listed) context.io.stderr.write(`… and ${total - listed} more\n`);
  const count = total === 1 ? "1 invalid line" : `${total} invalid lines`;
  throw new UsageError(`${inputName(path)} has ${count} (listed above); nothing was sent`, {
    hint: "Fix them and run the command again.",
  });
}
