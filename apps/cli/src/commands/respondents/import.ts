import { fileInBatches } from "../../sync/batches.ts";
import { defineCommand } from "../../framework/command.ts";
import { historyFormats, type HistoryFormat } from "./history-format.ts";
import { syncConnectionOptions } from "../../sync/sync-connection.ts";

/** `sds respondents import FILE`: respondents' history from elsewhere, sent to sds-sync. */
export const command = defineCommand({
  description:
    "Sends entries respondents made elsewhere (before sds-sync, or through another system) to sds-sync, so that routing keeps them out of surveys they already entered and of those surveys' groups. FILE is CSV (RFC 4180) with the header uid,surveyId,enteredAt[,outcome], or JSON Lines with those fields; enteredAt is ISO 8601 with a zone (2026-01-05T10:00:00Z), outcome one of complete, terminate, overquota, security or empty; - reads standard input. The format follows --format, else the extension (.csv, .jsonl, .ndjson), else the first character. Every line is checked before anything is sent (problems are listed as FILE:LINE, exit 2). Importing is idempotent: an entry already known (same respondent, survey and time) is skipped, so a file can be sent again. Prints how many entries were imported and skipped.",
  arguments: [
    { name: "FILE", description: "CSV (uid,surveyId,enteredAt[,outcome]) or JSON Lines (- for standard input)" },
  ],
  options: {
    format: {
      type: "string",
      valueName: "FORMAT",
      choices: historyFormats,
      description: "csv or jsonl (default: from the extension, else the content)",
    },
    batch: {
      type: "string",
      valueName: "N",
      // The limit is @sds/sync-client's MAX_HISTORY_BATCH, checked in run; written out here because
      // help must not load the package (zod), and a test keeps the two equal.
      description: "entries per request, 1 to 1000 (default 1000)",
    },
    ...syncConnectionOptions,
  },
  globalOptions: ["output", "json", "color", "timeout", "debug", "help"],
  examples: [
    {
      command: "respondents import history.csv --sync-url http://127.0.0.1:8787",
      description: "Import a CSV export of the panel's entries",
    },
    {
      command: "respondents import - --format jsonl < entries.jsonl",
      description: "JSON Lines from standard input (SDS_SYNC_URL and SYNC_API_TOKEN set)",
    },
  ],
  async run(context) {
    const { MAX_HISTORY_BATCH } = await import("@sds/sync-client");
    const { path, size } = fileInBatches(context, MAX_HISTORY_BATCH, MAX_HISTORY_BATCH);
    const { runHistoryImport } = await import("./history-import-run.ts");
    await runHistoryImport(context, path, { size, format: context.options.format as HistoryFormat | undefined });
  },
});
