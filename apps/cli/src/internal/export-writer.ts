import { createWriteStream, type WriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { once } from "node:events";
import { basename, dirname, join } from "node:path";
import type { SurveyWithDetails } from "@sds/client";
import { Survey } from "@sds/schemas";
import { csvCell } from "./cell.ts";
import { csvLine, type CsvOptions } from "./csv.ts";
import type { ExportFormat } from "./export-format.ts";
import { writeText, type OutputStream } from "./io.ts";

/** One exported survey: the survey, its qualifications and its quotas (when fetched). */
export interface ExportRecord {
  readonly survey: SurveyWithDetails["survey"];
  readonly qualifications: SurveyWithDetails["qualifications"];
  readonly quotas: NonNullable<SurveyWithDetails["quotas"]> | null;
}

const surveyColumns = Object.keys(Survey.shape);

/** The records in `format`, as chunks of text to write one after another. */
export function* serializeExport(records: readonly ExportRecord[], format: ExportFormat, csv: CsvOptions): Generator<string> {
  const batch = 500;
  switch (format) {
    case "ndjson":
      for (let start = 0; start < records.length; start += batch) yield records.slice(start, start + batch).map((record) => JSON.stringify(record) + "\n").join("");
      return;
    case "json":
      yield "[\n";
      for (let start = 0; start < records.length; start += batch) {
        yield records
          .slice(start, start + batch)
          .map((record, index) => `${start + index === 0 ? "" : ",\n"}  ${JSON.stringify(record)}`)
          .join("");
      }
      yield records.length === 0 ? "]\n" : "\n]\n";
      return;
    case "csv":
      // One row per survey: its fields, then its qualifications and quotas as JSON cells.
      yield csvLine([...surveyColumns, "Qualifications", "Quotas"], csv);
      for (let start = 0; start < records.length; start += batch) {
        yield records
          .slice(start, start + batch)
          .map((record) =>
            csvLine([
              ...surveyColumns.map((column) => csvCell((record.survey as Record<string, unknown>)[column])),
              JSON.stringify(record.qualifications),
              record.quotas === null ? "" : JSON.stringify(record.quotas),
            ], csv),
          )
          .join("");
      }
      return;
  }
}

/**
 * Writes the chunks to `path` through a temporary file renamed into place at the end, so an
 * interrupted or failed export never leaves a half-written file where the last good one was.
 */
export async function writeExportFile(path: string, chunks: Iterable<string>): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const stream: WriteStream = createWriteStream(temporary, { flags: "w" });
  try {
    await once(stream, "open");
    for (const chunk of chunks) if (!stream.write(chunk)) await once(stream, "drain");
    stream.end();
    await once(stream, "finish");
    await rename(temporary, path);
  } catch (error) {
    stream.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Writes the chunks to a stream (stdout), minding backpressure. */
export async function writeExportStream(stream: OutputStream, chunks: Iterable<string>): Promise<void> {
  for (const chunk of chunks) await writeText(stream, chunk);
}
