import type { HistoryImported } from "@sds/sync-client";
import { batchFailure, sendInBatches } from "../../sync/batches.ts";
import type { CommandContext } from "../../framework/command.ts";
import { SyncServiceError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { historyLines } from "./history-file.ts";
import { historyFormatOf, type HistoryFormat } from "./history-format.ts";
import { checkInputFile, inputName, openInputFile, type InputFile } from "../../framework/input-file.ts";
import { connectSync, type syncConnectionOptions } from "../../sync/sync-connection.ts";

/** What `sds respondents import -o json` prints. */
export interface HistoryImportReport {
  /** Entries in the file (and sent, unless a batch failed). */
  readonly entries: number;
  readonly imported: number;
  /** Entries sds-sync already knew (same respondent, survey and time). */
  readonly skipped: number;
}

/**
 * Reads and checks a history file to its end (nothing is sent unless every line is valid), then
 * reads it again, sending it in batches as it is read: memory holds a batch, not the file.
 * Prints the totals.
 */
export async function runHistoryImport(
  context: CommandContext<typeof syncConnectionOptions>,
  path: string,
  options: { readonly size: number; readonly format: HistoryFormat | undefined },
): Promise<void> {
  const sync = await connectSync(context);
  const input = await openInputFile(context, path);
  try {
    const format = historyFormatOf(path, await firstChunk(input), options.format);
    const entries = await checkInputFile(context, input, historyLines(format));
    if (entries.count === 0) context.output.note(`${inputName(path)} has no entries to import.`);
    const run = await sendInBatches(context, entries, {
      size: options.size,
      label: "Importing",
      send: async (batch, index) =>
        readAnswer(
          await sync.call((client, callOptions) =>
            client.respondents.importHistory({ entries: batch.map((item) => item.entry) }, callOptions),
          ),
          batch.length,
          index,
        ),
    });
    if (run.failure?.batch === 0) throw run.failure.error;
    const report: HistoryImportReport = {
      entries: run.answers.reduce((sum, answer) => sum + answer.imported + answer.skipped, 0),
      imported: run.answers.reduce((sum, answer) => sum + answer.imported, 0),
      skipped: run.answers.reduce((sum, answer) => sum + answer.skipped, 0),
    };
    await context.output.document(
      report,
      () =>
        `Imported ${report.imported} of ${report.entries} entr${report.entries === 1 ? "y" : "ies"}; ${report.skipped} already known, skipped.\n`,
    );
    if (run.failure !== undefined)
      throw batchFailure(run.failure, "Running the file again is safe: entries already imported are skipped.");
  } finally {
    await input.close();
  }
}

/** The first chunk of the file, for telling its format by its first character. */
async function firstChunk(input: InputFile): Promise<string> {
  for await (const chunk of input.chunks()) if (chunk.trim() !== "") return chunk;
  return "";
}

/** The answer (its shape checked by the client), checked to account for every entry sent. */
function readAnswer(answer: HistoryImported, sent: number, index: number): HistoryImported {
  if (answer.imported + answer.skipped !== sent) {
    throw new SyncServiceError(
      `sds-sync's answer to batch ${index + 1} does not account for the ${sent} entries sent`,
      ExitCode.Validation,
      { hint: "Check that --sync-url is sds-sync; run with --debug for the exchange." },
    );
  }
  return answer;
}
