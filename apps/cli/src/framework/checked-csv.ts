import { csvHeaderText, CsvSyntaxError, mapCsvHeader, readCsvRecords } from "./csv-reader.ts";
import type { CheckedLine, LineChecker } from "./input-file.ts";

/** The columns of a CSV file with a header: those it must have and those it may. */
export interface CsvColumns<Column extends string> {
  readonly required: readonly Column[];
  readonly optional: readonly Column[];
}

/**
 * Reads a CSV file with a header naming `columns` (in any order, any case) as checked lines:
 * each record after the header goes to `check` with a reader of its cells (empty for an
 * optional column the header lacks), which answers the item or what is wrong with the line. A
 * record with another number of fields than the header, a header that does not fit, an empty
 * file and text that is not CSV are problems too, each with its line.
 *
 * @example
 * ```ts
 * const reconcileLines = readCheckedCsv({ required: ["token", "outcome"], optional: ["reason"] }, (cell, line) =>
 *   cell("token") === "" ? "the token is empty" : { line, token: cell("token"), outcome: cell("outcome") },
 * );
 * ```
 */
export function readCheckedCsv<Column extends string, Item>(
  columns: CsvColumns<Column>,
  check: (cell: (column: Column) => string, line: number) => Item | string,
): LineChecker<Item> {
  return async function* (chunks): AsyncGenerator<CheckedLine<Item>, void, undefined> {
    let header: { readonly fields: readonly string[]; readonly columns: Map<Column, number> } | undefined;
    try {
      for await (const { line, fields } of readCsvRecords(chunks)) {
        if (header === undefined) {
          const mapped = mapCsvHeader(fields, columns.required, columns.optional);
          if (typeof mapped === "string") {
            yield { line, problem: mapped };
            return;
          }
          header = { fields, columns: mapped };
          continue;
        }
        if (fields.length !== header.fields.length) {
          yield { line, problem: `has ${fields.length} fields, the header ${header.fields.length}` };
          continue;
        }
        const indexes = header.columns;
        const checked = check((column) => {
          const index = indexes.get(column);
          return index === undefined ? "" : (fields[index] ?? "");
        }, line);
        yield typeof checked === "string" ? { line, problem: checked } : { line, item: checked };
      }
    } catch (error) {
      if (!(error instanceof CsvSyntaxError)) throw error;
      yield { line: error.line, problem: error.message };
      return;
    }
    if (header === undefined)
      yield {
        line: 1,
        problem: `the file is empty; its first line must be the header ${csvHeaderText(columns.required, columns.optional)}`,
      };
  };
}
