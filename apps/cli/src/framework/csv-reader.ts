/** One record of a CSV text, with the line it starts on (1 for the first, the header). */
export interface CsvRecord {
  readonly line: number;
  readonly fields: readonly string[];
}

/** What {@link parseCsv} found: every record, or the first place the text is not CSV. */
export type CsvParse =
  | { readonly ok: true; readonly records: readonly CsvRecord[] }
  | { readonly ok: false; readonly line: number; readonly message: string };

/** Where a CSV stream stops being CSV: the line and what is wrong there. */
export class CsvSyntaxError extends Error {
  override name = "CsvSyntaxError" as const;
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}

/**
 * Reads CSV per RFC 4180: comma-separated fields, quoted with `"` when they hold a comma, a
 * quote (doubled) or a line break; lines end in CRLF, LF or CR. A byte-order mark is dropped and
 * blank lines are skipped (editors and spreadsheets leave them at the end). A quote inside an
 * unquoted field, text after a closing quote, or a quote left open is an error naming its line:
 * guessing what such a line meant could change a token. The whole-text form of
 * {@link readCsvRecords}.
 *
 * @example
 * ```ts
 * parseCsv('token,reason\r\nt1,"late, rejected"\r\n');
 * // { ok: true, records: [{ line: 1, fields: ["token", "reason"] }, { line: 2, fields: ["t1", "late, rejected"] }] }
 * ```
 */
export function parseCsv(text: string): CsvParse {
  const reader = new CsvStreamReader();
  const records = [...reader.push(text), ...reader.end()];
  return reader.failure === undefined
    ? { ok: true, records }
    : { ok: false, line: reader.failure.line, message: reader.failure.message };
}

/**
 * The records of a CSV stream (as {@link parseCsv} reads them) as they are read: each chunk's
 * complete records are yielded before the next chunk is read, so memory holds one chunk and one
 * record, whatever the size of the file.
 *
 * @throws CsvSyntaxError at the first place the text is not CSV, after the records before it.
 */
export async function* readCsvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord, void, undefined> {
  const reader = new CsvStreamReader();
  for await (const chunk of chunks) {
    yield* reader.push(chunk);
    if (reader.failure !== undefined) throw reader.failure;
  }
  yield* reader.end();
  if (reader.failure !== undefined) throw reader.failure;
}

const quote = 0x22;
const comma = 0x2c;
const lineFeed = 0x0a;
const carriageReturn = 0x0d;

/**
 * The CSV state machine, fed chunk by chunk. What a chunk may cut in two is carried over: a
 * field, a quoted field's doubled quote (`"` at the end, `"` at the start of the next) and CRLF.
 */
class CsvStreamReader {
  failure: CsvSyntaxError | undefined;
  private started = false;
  private fields: string[] = [];
  private field = "";
  /** Whether the current field was quoted (so `""` is a field, not a blank line). */
  private quoted = false;
  private inQuotes = false;
  /** Inside quotes, the last character was a quote: a doubled quote or the closing one, as the next says. */
  private quoteEnding = false;
  /** The last character was CR: a LF right after it belongs to the same line break. */
  private afterCarriageReturn = false;
  private line = 1;
  private recordLine = 1;
  private quoteLine = 1;
  private records: CsvRecord[] = [];

  /** The records `chunk` completes; sets {@link failure} and stops at the first error. */
  push(chunk: string): CsvRecord[] {
    if (this.failure !== undefined) return [];
    let text = chunk;
    if (!this.started && text !== "") {
      this.started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    this.records = [];
    try {
      this.read(text);
    } catch (error) {
      if (!(error instanceof CsvSyntaxError)) throw error;
      this.failure = error;
    }
    return this.records;
  }

  /** The last record, when the text does not end in a line break. */
  end(): CsvRecord[] {
    if (this.failure !== undefined) return [];
    this.records = [];
    if (this.inQuotes && !this.quoteEnding) {
      this.failure = new CsvSyntaxError(this.quoteLine, "a quoted field is never closed (a quote is missing)");
      return [];
    }
    if (this.quoteEnding) this.closeQuotes();
    if (this.fields.length > 0 || this.field !== "" || this.quoted) this.endRecord();
    return this.records;
  }

  private read(text: string): void {
    const length = text.length;
    let index = 0;
    while (index < length) {
      let code = text.charCodeAt(index);
      if (this.afterCarriageReturn) {
        this.afterCarriageReturn = false;
        if (code === lineFeed) {
          index += 1;
          continue;
        }
      }
      if (this.inQuotes) {
        if (this.quoteEnding) {
          this.quoteEnding = false;
          if (code === quote) {
            this.field += '"';
            index += 1;
            continue;
          }
          // The quote closed the field; this character is read as after any field.
          this.closeQuotes();
          continue;
        }
        const end = scan(text, index, true);
        this.field += text.slice(index, end);
        index = end;
        if (index === length) break;
        code = text.charCodeAt(index);
        index += 1;
        if (code === quote) this.quoteEnding = true;
        else this.lineBreak(code, () => (this.field += "\n"));
        continue;
      }
      if (code === comma) {
        this.endField();
        index += 1;
      } else if (code === lineFeed || code === carriageReturn) {
        index += 1;
        this.lineBreak(code, () => {
          this.endRecord();
        });
        this.recordLine = this.line;
      } else if (this.quoted) {
        throw new CsvSyntaxError(
          this.line,
          "text after the closing quote of a field (a quote inside a field is written twice)",
        );
      } else if (code === quote) {
        if (this.field !== "")
          throw new CsvSyntaxError(
            this.line,
            'a quote inside an unquoted field (quote the whole field and write the quote twice: "a ""b"" c")',
          );
        this.inQuotes = true;
        this.quoteLine = this.line;
        index += 1;
      } else {
        const end = scan(text, index + 1, false);
        this.field += text.slice(index, end);
        index = end;
      }
    }
  }

  /** A line break (its first character given): `before` it, then the next line, CRLF counted once. */
  private lineBreak(code: number, before: () => void): void {
    before();
    this.line += 1;
    if (code === carriageReturn) this.afterCarriageReturn = true;
  }

  private closeQuotes(): void {
    this.inQuotes = false;
    this.quoted = true;
  }

  private endField(): void {
    this.fields.push(this.field);
    this.field = "";
    this.quoted = false;
  }

  private endRecord(): void {
    const blank = this.fields.length === 0 && this.field === "" && !this.quoted;
    this.endField();
    if (!blank) this.records.push({ line: this.recordLine, fields: this.fields });
    this.fields = [];
  }
}

/**
 * The index of the next character that ends a run of plain text from `start`: a quote or a
 * line break, and outside quotes a comma too (or the end of `text`).
 */
function scan(text: string, start: number, inQuotes: boolean): number {
  let index = start;
  for (; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === quote || code === lineFeed || code === carriageReturn || (!inQuotes && code === comma)) break;
  }
  return index;
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
    if (name === undefined) return `unknown column "${raw}"; the header is ${csvHeaderText(required, optional)}`;
    if (columns.has(name)) return `the column ${name} appears twice`;
    columns.set(name, index);
  }
  const missing = required.filter((column) => !columns.has(column));
  if (missing.length > 0)
    return `the header lacks ${missing.join(" and ")}; the first line must be ${csvHeaderText(required, optional)}`;
  return columns;
}

/** A header as help and messages write it: `token,outcome[,reason]`. */
export function csvHeaderText(required: readonly string[], optional: readonly string[]): string {
  return `${required.join(",")}${optional.map((column) => `[,${column}]`).join("")}`;
}
