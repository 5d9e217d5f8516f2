import type { CommandContext } from "../framework/command.ts";
import { CliError, UsageError } from "../framework/errors.ts";
import { exitCodeForError } from "../framework/exit-codes.ts";
import { parseNumberOption } from "../framework/option-values.ts";
import { createProgressBar } from "../framework/progress.ts";

/** An item of an input file: it knows its line. */
interface Lined {
  readonly line: number;
}

/**
 * FILE and `--batch N` of a command that sends a file to sds-sync in batches, checked: the size
 * from 1 to `maxSize`, sds-sync's limit per request (`defaultSize` when absent), and FILE `-`
 * refused beside `--sync-token-stdin`, which would read standard input too.
 */
export function fileInBatches(
  context: {
    readonly positionals: readonly string[];
    readonly options: { readonly batch?: string | undefined; readonly "sync-token-stdin"?: boolean | undefined };
  },
  defaultSize: number,
  maxSize: number,
): { readonly path: string; readonly size: number } {
  const path = context.positionals[0] ?? "-";
  const size = parseNumberOption("batch", context.options.batch ?? String(defaultSize), {
    integer: true,
    min: 1,
    max: maxSize,
  });
  if (path === "-" && context.options["sync-token-stdin"] === true) {
    throw new UsageError("the file (-) and --sync-token-stdin both read standard input", {
      hint: "Give the file by name, or set SYNC_API_TOKEN.",
    });
  }
  return { path, size };
}

/** Items to send read as a stream (a checked input file): how many, and the items in order. */
export interface BatchSource<Item> {
  readonly count: number;
  items(): AsyncIterable<Item>;
}

/** The batch that failed: its error, its place, and the lines around it. */
export interface BatchFailure {
  readonly error: unknown;
  /** The index of the batch that failed (0 for the first). */
  readonly batch: number;
  /** How many batches there were to send. */
  readonly batches: number;
  /** The line the failed batch starts on. */
  readonly firstLine: number | undefined;
  /** The last line of the batches sent before it. */
  readonly lastSentLine: number | undefined;
}

/** What {@link sendInBatches} did: the answers of the batches sent, and the failure that stopped it, if any. */
export interface BatchRun<Answer> {
  readonly answers: readonly Answer[];
  /** The batch that failed (the ones after it were not sent). */
  readonly failure?: BatchFailure;
}

/** Options of {@link sendInBatches}. */
export interface BatchOptions<Item, Answer> {
  readonly size: number;
  /** The progress bar's label on a terminal, such as `Reconciling`. */
  readonly label: string;
  send(batch: readonly Item[], index: number): Promise<Answer>;
}

/**
 * Sends `items` in batches of `options.size`, one after the other (the order of lines is part of
 * their meaning), with a progress bar on a terminal. Stops at the first batch that fails: what
 * was sent stays sent, and the caller reports it with {@link batchFailure}. Items read as a
 * stream ({@link BatchSource}) are held one batch at a time.
 */
export async function sendInBatches<Item extends Lined, Answer>(
  context: CommandContext,
  items: readonly Item[] | BatchSource<Item>,
  options: BatchOptions<Item, Answer>,
): Promise<BatchRun<Answer>> {
  const source: BatchSource<Item> = isBatchSource(items) ? items : { count: items.length, items: () => toAsync(items) };
  const answers: Answer[] = [];
  const batches = Math.ceil(source.count / options.size);
  const progress =
    batches > 1 ? createProgressBar(context.io.stderr, options.label, context.output.errorStyles) : undefined;
  let index = 0;
  let sent = 0;
  let lastSentLine: number | undefined;
  const sendBatch = async (batch: readonly Item[]): Promise<BatchFailure | undefined> => {
    try {
      answers.push(await options.send(batch, index));
    } catch (error) {
      return { error, batch: index, batches, firstLine: batch[0]?.line, lastSentLine };
    }
    index += 1;
    sent += batch.length;
    lastSentLine = batch.at(-1)?.line;
    progress?.update(sent, source.count);
    return undefined;
  };
  let batch: Item[] = [];
  try {
    for await (const item of source.items()) {
      batch.push(item);
      if (batch.length < options.size) continue;
      const failure = await sendBatch(batch);
      if (failure !== undefined) return { answers, failure };
      batch = [];
    }
    if (batch.length > 0) {
      const failure = await sendBatch(batch);
      if (failure !== undefined) return { answers, failure };
    }
  } catch (error) {
    // Reading the rest failed (the file changed, or vanished): the batches sent stay sent.
    return { answers, failure: { error, batch: index, batches, firstLine: batch[0]?.line, lastSentLine } };
  } finally {
    progress?.finish();
  }
  return { answers };
}

function isBatchSource<Item>(items: readonly Item[] | BatchSource<Item>): items is BatchSource<Item> {
  return !Array.isArray(items);
}

// eslint-disable-next-line @typescript-eslint/require-await -- an array as the stream the loop reads
async function* toAsync<Item>(items: readonly Item[]): AsyncGenerator<Item, void, undefined> {
  yield* items;
}

/**
 * The error for a batch that failed after others went through: the failure's own message and
 * exit code, which lines were and were not sent, and `advice` on running the file again. A
 * failure of the first batch is the failure itself: nothing was sent.
 */
export function batchFailure(failure: BatchFailure, advice: string): unknown;
/**
 * The same, from the items sent whole: the older form, kept for callers that hold them
 * (`batchFailure(run.failure, advice)` needs no items).
 */
export function batchFailure(
  error: unknown,
  batch: number,
  items: readonly Lined[],
  size: number,
  advice: string,
): unknown;
export function batchFailure(
  ...args: [BatchFailure, string] | [unknown, number, readonly Lined[], number, string]
): unknown {
  const [failure, advice] =
    args.length === 2
      ? args
      : [
          {
            error: args[0],
            batch: args[1],
            batches: Math.ceil(args[2].length / args[3]),
            firstLine: args[2][args[1] * args[3]]?.line,
            lastSentLine: args[2][args[1] * args[3] - 1]?.line,
          },
          args[4],
        ];
  const { error, batch } = failure;
  if (batch === 0) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(
    `batch ${batch + 1} of ${failure.batches} (from line ${failure.firstLine ?? "?"}) failed: ${message}`,
    exitCodeForError(error),
    {
      cause: error,
      hint: `The lines up to line ${failure.lastSentLine ?? "?"} were sent (their results are above); the rest were not. ${advice}`,
    },
  );
}
