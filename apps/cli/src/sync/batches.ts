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

/** What {@link sendInBatches} did: the answers of the batches sent, and the failure that stopped it, if any. */
export interface BatchRun<Answer> {
  readonly answers: readonly Answer[];
  /** The error of the batch that failed (the ones after it were not sent). */
  readonly failure?: { readonly error: unknown; readonly batch: number };
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
 * was sent stays sent, and the caller reports it with {@link batchFailure}.
 */
export async function sendInBatches<Item, Answer>(
  context: CommandContext,
  items: readonly Item[],
  options: BatchOptions<Item, Answer>,
): Promise<BatchRun<Answer>> {
  const answers: Answer[] = [];
  const batches = Math.ceil(items.length / options.size);
  const progress =
    batches > 1 ? createProgressBar(context.io.stderr, options.label, context.output.errorStyles) : undefined;
  try {
    for (let index = 0; index < batches; index++) {
      const batch = items.slice(index * options.size, (index + 1) * options.size);
      try {
        answers.push(await options.send(batch, index));
      } catch (error) {
        return { answers, failure: { error, batch: index } };
      }
      progress?.update(Math.min(items.length, (index + 1) * options.size), items.length);
    }
  } finally {
    progress?.finish();
  }
  return { answers };
}

/**
 * The error for a batch that failed after others went through: the failure's own message and
 * exit code, which lines were and were not sent, and `advice` on running the file again. A
 * failure of the first batch is the failure itself: nothing was sent.
 */
export function batchFailure(
  error: unknown,
  batch: number,
  items: readonly Lined[],
  size: number,
  advice: string,
): unknown {
  if (batch === 0) return error;
  const first = items[batch * size]?.line;
  const lastSent = items[batch * size - 1]?.line;
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(
    `batch ${batch + 1} of ${Math.ceil(items.length / size)} (from line ${first ?? "?"}) failed: ${message}`,
    exitCodeForError(error),
    {
      cause: error,
      hint: `The lines up to line ${lastSent ?? "?"} were sent (their results are above); the rest were not. ${advice}`,
    },
  );
}
