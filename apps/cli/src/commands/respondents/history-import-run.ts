import type { HistoryImported } from "@sds/sync-client";
import { batchFailure, sendInBatches } from "../../sync/batches.ts";
import type { CommandContext } from "../../framework/command.ts";
import { SyncServiceError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { parseHistoryFile } from "./history-file.ts";
import { historyFormatOf, type HistoryFormat } from "./history-format.ts";
import { inputName, readInputText, refuseInvalidLines } from "../../framework/input-file.ts";
import { connectSync, type syncConnectionOptions } from "../../sync/sync-connection.ts";

/** What `sds respondents import -o json` prints. */
export interface HistoryImportReport {
  /** Entries in the file (and sent, unless a batch failed). */
  readonly entries: number;
  readonly imported: number;
  /** Entries sds-sync already knew (same respondent, survey and time). */
  readonly skipped: number;
}

/** Reads, checks and sends a history file, then prints the totals. */
export async function runHistoryImport(
  context: CommandContext<typeof syncConnectionOptions>,
  path: string,
  options: { readonly size: number; readonly format: HistoryFormat | undefined },
): Promise<void> {
  const sync = await connectSync(context);
  const text = await readInputText(context, path);
  const { entries, problems } = parseHistoryFile(text, historyFormatOf(path, text, options.format));
  refuseInvalidLines(context, path, problems);
  if (entries.length === 0) context.output.note(`${inputName(path)} has no entries to import.`);
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
  const sent = run.answers.reduce((sum, answer) => sum + answer.imported + answer.skipped, 0);
  const report: HistoryImportReport = {
    entries: sent,
    imported: run.answers.reduce((sum, answer) => sum + answer.imported, 0),
    skipped: run.answers.reduce((sum, answer) => sum + answer.skipped, 0),
  };
  await context.output.document(
    report,
    () =>
      `Imported ${report.imported} of ${report.entries} entr${report.entries === 1 ? "y" : "ies"}; ${report.skipped} already known, skipped.\n`,
  );
  if (run.failure !== undefined)
    throw batchFailure(
      run.failure.error,
      run.failure.batch,
      entries,
      options.size,
      "Running the file again is safe: entries already imported are skipped.",
    );
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
