/** One record of a CSV text, with the line it starts on (1 for the first, the header). */
export interface CsvRecord {
  readonly line: number;
  readonly fields: readonly string[];
}

/** What {@link parseCsv} found: every record, or the first place the text is not CSV. */
export type CsvParse =
  | { readonly ok: true; readonly records: readonly CsvRecord[] }
  | { readonly ok: false; readonly line: number; readonly message: string };

/**
 * Reads CSV per RFC 4180: comma-separated fields, quoted with `"` when they hold a comma, a
 * quote (doubled) or a line break; lines end in CRLF, LF or CR. A byte-order mark is dropped and
 * blank lines are skipped (editors and spreadsheets leave them at the end). A quote inside an
 * unquoted field, text after a closing quote, or a quote left open is an error naming its line:
 * guessing what such a line meant could change a token.
 *
 * @example
 * ```ts
 * parseCsv('token,reason\r\nt1,"late, rejected"\r\n');
 * // { ok: true, records: [{ line: 1, fields: ["token", "reason"] }, { line: 2, fields: ["t1", "late, rejected"] }] }
 * ```
 */
export function parseCsv(text: string): CsvParse {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let index = 0;
  /** Whether the current field was quoted (so `""` is a field, not a blank line). */
  let quoted = false;
  const endField = () => {
    fields.push(field);
    field = "";
    quoted = false;
  };
  const endRecord = () => {
    const blank = fields.length === 0 && field === "" && !quoted;
    endField();
    if (!blank) records.push({ line: recordLine, fields });
    fields = [];
  };
  /** Consumes a line break at `index`, if any: CRLF, LF or CR. */
  const lineBreak = (): boolean => {
    const character = source[index];
    if (character === "\n" || character === "\r") {
      index += character === "\r" && source[index + 1] === "\n" ? 2 : 1;
      line += 1;
      return true;
    }
    return false;
  };

  while (index < source.length) {
    if (source[index] === '"' && field === "" && !quoted) {
      // A quoted field: up to the quote not followed by another one.
      const startLine = line;
      index += 1;
      for (;;) {
        if (index >= source.length)
          return { ok: false, line: startLine, message: "a quoted field is never closed (a quote is missing)" };
        if (source[index] === '"') {
          if (source[index + 1] === '"') {
            field += '"';
            index += 2;
            continue;
          }
          index += 1;
          break;
        }
        if (lineBreak()) field += "\n";
        else field += source.charAt(index++);
      }
      // The separator or line break after it is read by the loop, as after an unquoted field.
      quoted = true;
      continue;
    }
    const character = source[index];
    if (character === ",") {
      endField();
      index += 1;
    } else if (lineBreak()) {
      endRecord();
      recordLine = line;
    } else if (quoted) {
      return {
        ok: false,
        line,
        message: "text after the closing quote of a field (a quote inside a field is written twice)",
      };
    } else if (character === '"') {
      return {
        ok: false,
        line,
        message: 'a quote inside an unquoted field (quote the whole field and write the quote twice: "a ""b"" c")',
      };
    } else {
      field += source.charAt(index);
      index += 1;
    }
  }
  if (fields.length > 0 || field !== "" || quoted) endRecord();
  return { ok: true, records };
}

/**
 * Maps a CSV header to the columns a command knows, by name (case and edge spaces ignored), in
 * any order. Returns the index of each column, or the problem with the header.
 */
export function mapCsvHeader<Column extends string>(
  fields: readonly string[],
  required: readonly Column[],
  optional: readonly Column[],
): Map<Column, number> | string {
  const known = [...required, ...optional];
  const columns = new Map<Column, number>();
  for (const [index, raw] of fields.entries()) {
    const name = known.find((column) => column.toLowerCase() === raw.trim().toLowerCase());
    if (name === undefined)
      return `unknown column "${raw}"; the header is ${required.join(",")}${optional.map((column) => `[,${column}]`).join("")}`;
    if (columns.has(name)) return `the column ${name} appears twice`;
    columns.set(name, index);
  }
  const missing = required.filter((column) => !columns.has(column));
  if (missing.length > 0)
    return `the header lacks ${missing.join(" and ")}; the first line must be ${required.join(",")}${optional.map((column) => `[,${column}]`).join("")}`;
  return columns;
}
