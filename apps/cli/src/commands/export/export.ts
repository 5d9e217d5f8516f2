import type { SurveyDetailsFailure } from "@sds/client";
import { connect } from "../../connection/client.ts";
import { defineCommand } from "../../framework/command.ts";
import { CliError, PartialFailureError, UsageError } from "../../framework/errors.ts";
import { ExitCode, exitCodeForError } from "../../framework/exit-codes.ts";
import { exportFormats, formatFromExtension, type ExportFormat } from "./export-format.ts";
import type { ExportSink } from "./export-writer.ts";
import { parseNumberOption } from "../../framework/option-values.ts";
import { createProgressBar } from "../../framework/progress.ts";
import { buildSurveyFilters, surveyFilterOptions } from "../surveys/survey-filters.ts";

const quotaModes = ["flagged", "all", "none"] as const;

/** `sds export`: every live survey with its qualifications and quotas, to a file or stdout. */
export const command = defineCommand({
  description:
    "Exports every live survey with its qualifications and quotas (where Has_Quotas, by default) as NDJSON, JSON or CSV, to a file or standard output. Surveys are fetched a few at a time (--concurrency) and written as they arrive, in list order, so a reader that stops early (`sds export | head`) stops the export; a progress bar shows on a terminal. A survey whose requests fail is left out, listed at the end, and makes the exit code non-zero (the code of its failure, 1 when failures differ); the others are still written. A file is written in full or not at all. The filters are those of `sds surveys list`, under the same names. In CSV, qualifications and quotas are readable text (`42=18–64; 43=1, 2`; quotas `QuotaId Name completes/target: conditions`, ` | ` between them), and cells cells that a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR; numbers excepted) get a leading ' unless --raw-csv is given.",
  options: {
    ...surveyFilterOptions,
    out: { type: "string", valueName: "FILE", isPath: true, description: "write to FILE instead of standard output" },
    format: {
      type: "string",
      valueName: "FORMAT",
      choices: exportFormats,
      description: "ndjson, json or csv (default: from FILE's extension, else ndjson)",
    },
    concurrency: { type: "string", valueName: "N", description: "surveys fetched at once, 1 to 32 (default 4)" },
    quotas: {
      type: "string",
      valueName: "WHICH",
      choices: quotaModes,
      description: "fetch quotas of surveys flagged Has_Quotas (default), all, or none",
    },
  },
  examples: [
    { command: "export --out surveys.ndjson", description: "Everything, one survey per line" },
    { command: "export --format csv --quotas none > surveys.csv", description: "CSV without quotas" },
    {
      command: "export --country US --device mobile --min-cpi 1.5 --out us-mobile.csv",
      description: "Only the surveys `sds surveys list` shows with the same filters",
    },
    { command: "export --concurrency 8 --out surveys.json", description: "Faster, as one JSON array" },
    {
      command: "export --format csv --raw-csv --out feed.csv",
      description: "CSV for a program: cells starting with = + - @ kept as they are",
    },
  ],
  async run(context) {
    const { options, output, io } = context;
    const format = chooseFormat(options.format, options.out, context.globals.output);
    const concurrency =
      options.concurrency === undefined
        ? 4
        : parseNumberOption("concurrency", options.concurrency, { integer: true, min: 1, max: 32 });
    const quotaMode = (options.quotas ?? "flagged") as (typeof quotaModes)[number];

    const { client } = await connect(context);
    const filters = await buildSurveyFilters(options, client, context.signal);
    const { filterSurveys } = await import("../surveys/survey-query.ts");
    const { exportSerializer, fileSink, streamSink } = await import("./export-writer.ts");
    const { exportInListOrder } = await import("./export-fan-out.ts");
    const serializer = exportSerializer(format, { defuseFormulas: !context.globals.rawCsv });
    const sink = options.out === undefined ? streamSink(io.stdout) : await openFile(options.out, fileSink);
    const progress = createProgressBar(io.stderr, "Exporting", output.errorStyles);
    // Written as fetched, in list order: a reader that stops early (`| head`) stops the export
    // at the next write (EPIPE ends the process, see main.ts), not after every request.
    // The header goes out with the first record (or at the end): a failed list request leaves stdout empty.
    let headerWritten = false;
    const writeHeader = async () => {
      if (!headerWritten) await sink.write(serializer.header);
      headerWritten = true;
    };
    let result;
    try {
      result = await exportInListOrder(client, {
        concurrency,
        includeQuotas: quotaMode === "all" ? true : quotaMode === "none" ? false : "flagged",
        select: (surveys) => filterSurveys(surveys, filters),
        signal: context.signal,
        onProgress: (completed, total) => {
          progress.update(completed, total);
        },
        onRecord: async (record, index) => {
          await writeHeader();
          await sink.write(serializer.record(record, index));
        },
      });
      await writeHeader();
      await sink.write(serializer.footer(result.written));
      await sink.commit();
    } catch (error) {
      await sink.discard();
      if (options.out !== undefined && isFileError(error))
        throw new CliError(`cannot write ${options.out}: ${error.message}`, ExitCode.Failure, { cause: error });
      throw error;
    } finally {
      progress.finish();
    }
    const failedSurveys = new Set(result.failures.map((failure) => failure.surveyId));
    const destination = options.out === undefined ? "" : ` to ${options.out}`;
    const problems = [
      failedSurveys.size > 0 ? `${failedSurveys.size} failed` : "",
      result.invalid.length > 0 ? `${result.invalid.length} invalid` : "",
    ].filter(Boolean);
    const filtered = Object.keys(filters).length > 0 ? ` of ${result.live} live` : "";
    output.note(
      `Exported ${result.written}${filtered} survey${result.written === 1 && filtered === "" ? "" : "s"}${destination} as ${format}${problems.length > 0 ? ` (${problems.join(", ")})` : ""}.`,
    );
    reportFailures(context.output.warn.bind(context.output), result.failures);
    if (result.invalid.length > 0) {
      output.warn(
        `${result.invalid.length} survey${result.invalid.length === 1 ? "" : "s"} of the list failed validation and ${result.invalid.length === 1 ? "was" : "were"} left out (run with --debug for the issues)`,
      );
      if (context.globals.debug) {
        for (const item of result.invalid)
          for (const issue of item.issues)
            io.stderr.write(
              `  index ${item.index}: ${issue.path.map(String).join(".") || "(root)"}: ${issue.message}\n`,
            );
      }
    }
    const codes = new Set([
      ...result.failures.map((failure) => exitCodeForError(failure.error)),
      ...(result.invalid.length > 0 ? [ExitCode.Validation] : []),
    ]);
    if (codes.size > 0) {
      const [only] = codes;
      const what = [
        failedSurveys.size > 0
          ? `${failedSurveys.size} survey${failedSurveys.size === 1 ? "" : "s"} could not be exported`
          : "",
        result.invalid.length > 0 ? `${result.invalid.length} failed validation` : "",
      ]
        .filter(Boolean)
        .join(" and ");
      throw new PartialFailureError(
        `export incomplete: ${what}`,
        codes.size === 1 && only !== undefined ? only : ExitCode.Failure,
        { hint: "The other surveys were written; run the export again to retry." },
      );
    }
  },
});

function chooseFormat(
  format: string | undefined,
  out: string | undefined,
  globalOutput: string | undefined,
): ExportFormat {
  if (format !== undefined) return format as ExportFormat;
  if (globalOutput !== undefined) {
    if (globalOutput === "table")
      throw new UsageError("export writes ndjson, json or csv, not a table", {
        hint: "Pass --format ndjson, json or csv.",
      });
    return globalOutput as ExportFormat;
  }
  return (out === undefined ? undefined : formatFromExtension(out)) ?? "ndjson";
}

function reportFailures(warn: (text: string) => void, failures: readonly SurveyDetailsFailure[]): void {
  const shown = failures.slice(0, 20);
  for (const failure of shown) {
    const what = failure.operation === "getSurveyQuotas" ? "quotas" : "qualifications";
    warn(`survey ${failure.surveyId}: ${what}: ${failure.error.message}`);
  }
  if (failures.length > shown.length) warn(`… and ${failures.length - shown.length} more failures`);
}

async function openFile(path: string, open: (path: string) => Promise<ExportSink>): Promise<ExportSink> {
  try {
    return await open(path);
  } catch (error) {
    throw new CliError(`cannot write ${path}: ${(error as Error).message}`, ExitCode.Failure, { cause: error });
  }
}

/** An error of the file system (it has an errno code such as `ENOSPC`), not of the service. */
function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}
