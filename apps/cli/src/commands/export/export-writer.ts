import { createWriteStream, type WriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { once } from "node:events";
import { basename, dirname, join } from "node:path";
import type { SurveyWithDetails } from "@sds/client";
import { Survey } from "@sds/schemas";
import { csvCell } from "../../framework/cell.ts";
import { csvLine, type CsvOptions } from "../../framework/csv.ts";
import { qualificationsCell, quotasCell } from "./detail-cells.ts";
import type { ExportFormat } from "./export-format.ts";
import { writeText, type OutputStream } from "../../framework/io.ts";

/** One exported survey: the survey, its qualifications and its quotas (when fetched). */
export interface ExportRecord {
  readonly survey: SurveyWithDetails["survey"];
  readonly qualifications: SurveyWithDetails["qualifications"];
  readonly quotas: NonNullable<SurveyWithDetails["quotas"]> | null;
}

const surveyColumns = Object.keys(Survey.shape);

/** An export's text in pieces: what comes before the records, each record, what comes after. */
export interface ExportSerializer {
  readonly header: string;
  /** Record number `index` (from 0) of the export. */
  record(record: ExportRecord, index: number): string;
  /** What closes an export of `count` records. */
  footer(count: number): string;
}

/** How `format` writes an export, piece by piece, so records can be written as they arrive. */
export function exportSerializer(format: ExportFormat, csv: CsvOptions): ExportSerializer {
  switch (format) {
    case "ndjson":
      return { header: "", record: (record) => JSON.stringify(record) + "\n", footer: () => "" };
    case "json":
      return {
        header: "[\n",
        record: (record, index) => `${index === 0 ? "" : ",\n"}  ${JSON.stringify(record)}`,
        footer: (count) => (count === 0 ? "]\n" : "\n]\n"),
      };
    case "csv":
      // One row per survey: its fields, then its qualifications and quotas as readable text.
      return {
        header: csvLine([...surveyColumns, "Qualifications", "Quotas"], csv),
        record: (record) =>
          csvLine(
            [
              ...surveyColumns.map((column) => csvCell((record.survey as Record<string, unknown>)[column])),
              qualificationsCell(record.qualifications),
              quotasCell(record.quotas),
            ],
            csv,
          ),
        footer: () => "",
      };
  }
}

/** Where an export is written: standard output, or a file that appears only once complete. */
export interface ExportSink {
  /** Writes a piece, waiting while the destination's buffer is full. */
  write(text: string): Promise<void>;
  /** Finishes the export: a file is renamed into place. */
  commit(): Promise<void>;
  /** Gives up: a file's temporary copy is removed. */
  discard(): Promise<void>;
}

/** An {@link ExportSink} on a stream (stdout): pieces are written as they come. */
export function streamSink(stream: OutputStream): ExportSink {
  return {
    write: (text) => writeText(stream, text),
    commit: () => Promise.resolve(),
    discard: () => Promise.resolve(),
  };
}

/**
 * An {@link ExportSink} on `path`, written through a temporary file renamed into place by
 * `commit`, so an interrupted or failed export never leaves a half-written file where the last
 * good one was.
 */
export async function fileSink(path: string): Promise<ExportSink> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const stream: WriteStream = createWriteStream(temporary, { flags: "w" });
  // An error between two writes (a full disk) is kept and thrown by the next call, not lost.
  let failure: Error | undefined;
  stream.on("error", (error) => {
    failure ??= error;
  });
  const discard = async () => {
    stream.destroy();
    await rm(temporary, { force: true });
  };
  try {
    await once(stream, "open");
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    async write(text) {
      if (failure !== undefined) throw failure;
      if (!stream.write(text)) await once(stream, "drain");
    },
    async commit() {
      try {
        if (failure !== undefined) throw failure;
        stream.end();
        await once(stream, "finish");
        await rename(temporary, path);
      } catch (error) {
        await discard();
        throw error;
      }
    },
    discard,
  };
}
