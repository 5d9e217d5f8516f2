import { describe, expect, it } from "vitest";
import { csvLine } from "./csv.ts";
import { parseCsv, readCsvRecords } from "./csv-reader.ts";

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

/** `text` as a stream cut at the given offsets. */
async function* chunked(text: string, cuts: readonly number[]): AsyncGenerator<string> {
  let start = 0;
  for (const cut of [...cuts, text.length]) {
    await Promise.resolve(); // as a stream, a chunk at a time
    yield text.slice(start, cut);
    start = cut;
  }
}

async function collect(chunks: AsyncIterable<string>): Promise<unknown[]> {
  const records: unknown[] = [];
  try {
    for await (const record of readCsvRecords(chunks)) records.push([record.line, ...record.fields]);
  } catch (error) {
    records.push({ line: (error as { line?: number }).line, message: (error as Error).message });
  }
  return records;
}

describe("readCsvRecords", () => {
  it("reads the same records wherever the stream is cut: inside a CRLF, a doubled quote, a quoted line break", async () => {
    const texts = [
      '\uFEFFtoken,outcome,reason\r\nt1,terminate,"late, and ""rude"""\r\nt2,complete,"two\r\nlines"\r\n\r\nt3,complete,\r4,5',
      'a,b\n1,"open\n2,3\n',
      'a\n"x"y\n',
      'a\nx"y"\n',
      'a\n""\n""',
    ];
    for (const text of texts) {
      const whole = await collect(chunked(text, []));
      const parsed = parseCsv(text);
      expect(whole.at(-1)).toEqual(
        parsed.ok
          ? parsed.records.map((record) => [record.line, ...record.fields]).at(-1)
          : { line: parsed.line, message: parsed.message },
      );
      for (let cut = 0; cut <= text.length; cut++)
        for (let second = cut; second <= text.length; second += 3)
          expect(
            await collect(chunked(text, [cut, second])),
            `${JSON.stringify(text)} cut at ${cut}, ${second}`,
          ).toEqual(whole);
    }
  });

  it("yields the first records before the stream ends", async () => {
    let linesRead = 0;
    async function* neverEnding(): AsyncGenerator<string> {
      yield "token,outcome\n";
      for (; linesRead < 3; linesRead++) yield `t${linesRead},complete\n`;
      // A file still being written, or a pipe whose writer is slow: no end in sight.
      await new Promise(() => undefined);
    }
    const records = readCsvRecords(neverEnding());
    const first = await records.next();
    expect(first.value).toEqual({ line: 1, fields: ["token", "outcome"] });
    const second = await records.next();
    expect(second.value).toEqual({ line: 2, fields: ["t0", "complete"] });
    expect(linesRead).toBeLessThan(3);
    await records.return(undefined);
  });
});
