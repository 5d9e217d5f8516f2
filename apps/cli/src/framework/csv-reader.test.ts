import { describe, expect, it } from "vitest";
import { csvLine } from "./csv.ts";
import { parseCsv } from "./csv-reader.ts";

const fieldsOf = (text: string) => {
  const parsed = parseCsv(text);
  if (!parsed.ok) throw new Error(`line ${parsed.line}: ${parsed.message}`);
  return parsed.records.map((record) => [record.line, ...record.fields]);
};

describe("parseCsv", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks, numbering records by the line they start on", () => {
    const text =
      'token,outcome,reason\r\nt1,terminate,"late, and ""rude"""\r\nt2,complete,"two\r\nlines"\r\nt3,complete,\r\n';
    expect(fieldsOf(text)).toEqual([
      [1, "token", "outcome", "reason"],
      [2, "t1", "terminate", 'late, and "rude"'],
      [3, "t2", "complete", "two\nlines"],
      [5, "t3", "complete", ""],
    ]);
  });

  it("takes LF and CR line ends, a byte-order mark, blank lines and a last line without a line end", () => {
    expect(fieldsOf("\uFEFFa,b\n\n1,2\r3,4")).toEqual([
      [1, "a", "b"],
      [3, "1", "2"],
      [4, "3", "4"],
    ]);
    // A lone quoted empty field is a value, not a blank line.
    expect(fieldsOf('a\n""\n')).toEqual([
      [1, "a"],
      [2, ""],
    ]);
  });

  it("reads back what the CLI's own CSV writer wrote", () => {
    const rows = [
      ["=cmd", 'say "hi"', "a,b", " edge "],
      ["-5", "x\ny", "", "ü 調査"],
    ];
    const text = rows.map((row) => csvLine(row, { defuseFormulas: false })).join("");
    expect(fieldsOf(text).map((record) => record.slice(1))).toEqual(rows);
  });

  it("refuses what is not CSV, naming the line", () => {
    expect(parseCsv('a,b\n1,"open\n2,3\n')).toEqual({
      ok: false,
      line: 2,
      message: "a quoted field is never closed (a quote is missing)",
    });
    expect(parseCsv('a\n"x"y\n')).toMatchObject({
      ok: false,
      line: 2,
      message: expect.stringMatching(/^text after the closing quote/) as unknown,
    });
    expect(parseCsv('a\nx"y"\n')).toMatchObject({
      ok: false,
      line: 2,
      message: expect.stringMatching(/^a quote inside an unquoted field/) as unknown,
    });
  });
});
