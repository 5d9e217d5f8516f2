import { csvCell, flattenDocument, tableCell } from "./cell.ts";
import { csvLine } from "./csv.ts";
import type { GlobalOptions, OutputFormat } from "./global-options.ts";
import { writeText, type CliIo } from "./io.ts";
import type { StreamStyles, Styles } from "./styles.ts";
import type { TableColumn, TableRenderer } from "./table.ts";
import { visibleControls } from "./terminal-text.ts";

/** One column of a list of records: the field it shows and how. */
export interface RecordColumn<Row> extends TableColumn {
  /** The value of the cell; the record's field named by `header` when left out. */
  readonly value?: (row: Row) => unknown;
}

/** Options of {@link Output.records}. */
export interface RecordsOptions<Row> {
  /** The columns of the table and the CSV; JSON and NDJSON print the records whole. */
  readonly columns: readonly RecordColumn<Row>[];
  /** Printed to stderr on a terminal when there are no records, such as `No surveys match.` */
  readonly emptyMessage?: string;
}

/** A list printed as it comes, batch by batch ({@link Output.recordStream}). */
export interface RecordStream<Row extends object> {
  /** Prints `rows` (NDJSON, CSV) or keeps them for {@link RecordStream.end} (JSON, table). */
  write(rows: readonly Row[]): Promise<void>;
  /** Prints what is left: the CSV header of an empty list, or the whole JSON array or table. */
  end(): Promise<void>;
}

/**
 * Where a command's results go. Data goes to stdout in the chosen format; notes and warnings
 * go to stderr, so that `sds … | jq` always gets clean data.
 */
export interface Output {
  readonly format: OutputFormat;
  /** Styles for stdout (plain unless stdout is a colour terminal). */
  readonly styles: Styles;
  /** Styles for stderr. */
  readonly errorStyles: Styles;
  /** The width tables are fitted to: the terminal's, or `undefined` when stdout is not one. */
  readonly maxWidth: number | undefined;
  /** Prints a list: a table, a JSON array, one JSON line per record, or CSV with a header. */
  records<Row extends object>(rows: readonly Row[], options: RecordsOptions<Row>): Promise<void>;
  /**
   * Prints a list as it comes, as {@link Output.records} would print it whole: NDJSON and CSV
   * (whose lines stand alone) each batch as it is written, so memory holds a batch, not the
   * list; JSON and a table need the whole list, kept until `end`.
   */
  recordStream<Row extends object>(options: RecordsOptions<Row>): RecordStream<Row>;
  /**
   * Prints one value: as JSON (pretty) or one NDJSON line; as `field,value` CSV rows; on a
   * table, as what `renderText` makes of it (given the table functions, loaded on demand), else
   * as aligned `field value` lines.
   */
  document(value: unknown, renderText?: (styles: Styles, tables: TableRenderer) => string): Promise<void>;
  /**
   * Writes text to stdout: as given in JSON, NDJSON and CSV; in table format (text for people)
   * with control characters made visible but the styles' own (see `visibleControls`).
   */
  write(text: string): Promise<void>;
  /** A line for people, on stderr: progress, summaries, what was (not) done; controls made visible. */
  note(text: string): void;
  /** A warning on stderr, prefixed `warning:`; controls made visible. */
  warn(text: string): void;
}

/**
 * The {@link Output} for this run: table on a terminal, JSON otherwise, unless `--output` says;
 * coloured as decided once for the run (`decideStyles`).
 */
export function createOutput(
  io: CliIo,
  globals: Pick<GlobalOptions, "output" | "rawCsv">,
  streamStyles: StreamStyles,
): Output {
  const format: OutputFormat = globals.output ?? (io.stdout.isTTY === true ? "table" : "json");
  const { stdout: styles, stderr: errorStyles } = streamStyles;
  const csv = { defuseFormulas: !globals.rawCsv };
  // Text for people is the one path every command's table and plain text takes to the terminal:
  // third-party text in it (a marketplace's reason, a survey's name) must not drive the terminal.
  // Tables make their cells visible before measuring them; this catches the rest.
  const write = (text: string) => writeText(io.stdout, format === "table" ? visibleControls(text, styles) : text);
  const maxWidth =
    io.stdout.isTTY === true && io.stdout.columns !== undefined && io.stdout.columns > 0
      ? io.stdout.columns
      : undefined;

  const csvHeader = <Row>(columns: readonly RecordColumn<Row>[]) =>
    csvLine(
      columns.map((column) => column.header),
      csv,
    );
  /** The records as NDJSON or CSV lines (without the header). */
  const lineRecords = <Row extends object>(rows: readonly Row[], columns: readonly RecordColumn<Row>[]) =>
    format === "ndjson"
      ? rows.map((row) => JSON.stringify(row) + "\n")
      : rows.map((row) =>
          csvLine(
            columns.map((column) => csvCell(cellValue(row, column))),
            csv,
          ),
        );

  return {
    format,
    styles,
    errorStyles,
    maxWidth,
    async records(rows, options) {
      switch (format) {
        case "json":
          return write(JSON.stringify(rows, null, 2) + "\n");
        case "ndjson":
        case "csv":
          return writeLines(
            [...(format === "csv" ? [csvHeader(options.columns)] : []), ...lineRecords(rows, options.columns)],
            write,
          );
        case "table": {
          if (rows.length === 0) {
            this.note(options.emptyMessage ?? "Nothing to show.");
            return;
          }
          const { renderTable } = await import("./table.ts");
          return write(
            renderTable(
              options.columns,
              rows.map((row) => options.columns.map((column) => tableCell(cellValue(row, column)))),
              { styles, maxWidth },
            ),
          );
        }
      }
    },
    recordStream<Row extends object>(options: RecordsOptions<Row>): RecordStream<Row> {
      if (format === "json" || format === "table") {
        const kept: Row[] = [];
        return {
          write: (rows) => {
            kept.push(...rows);
            return Promise.resolve();
          },
          end: () => this.records(kept, options),
        };
      }
      // The CSV header goes with the first rows: a run that fails before any prints nothing.
      let headerWritten = format !== "csv";
      const header = () => {
        if (headerWritten) return [];
        headerWritten = true;
        return [csvHeader(options.columns)];
      };
      return {
        write: (rows) => writeLines([...header(), ...lineRecords(rows, options.columns)], write),
        end: () => writeLines(header(), write),
      };
    },
    async document(value, renderText) {
      switch (format) {
        case "json":
          return write(JSON.stringify(value, null, 2) + "\n");
        case "ndjson":
          return write(JSON.stringify(value) + "\n");
        case "csv":
          return writeLines(
            [
              csvLine(["field", "value"], csv),
              ...flattenDocument(value).map(([field, item]) => csvLine([field, csvCell(item)], csv)),
            ],
            write,
          );
        case "table": {
          const tables = await import("./table.ts");
          return write(
            renderText === undefined
              ? tables.renderKeyValues(
                  flattenDocument(value).map(([field, item]) => [field, tableCell(item)] as const),
                  styles,
                )
              : renderText(styles, tables),
          );
        }
      }
    },
    write,
    note(text) {
      io.stderr.write(visibleControls(text, errorStyles) + "\n");
    },
    warn(text) {
      io.stderr.write(visibleControls(`${errorStyles.yellow("warning:")} ${text}`, errorStyles) + "\n");
    },
  };
}

function cellValue<Row extends object>(row: Row, column: RecordColumn<Row>): unknown {
  return column.value === undefined ? (row as Record<string, unknown>)[column.header] : column.value(row);
}

/** Writes many lines in batches: one write per line is slow, one string of 50 MB is wasteful. */
async function writeLines(lines: readonly string[], write: (text: string) => Promise<void>): Promise<void> {
  const batchSize = 500;
  for (let start = 0; start < lines.length; start += batchSize)
    await write(lines.slice(start, start + batchSize).join(""));
}
