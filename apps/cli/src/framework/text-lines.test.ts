import { describe, expect, it } from "vitest";
import { readTextLines } from "./text-lines.ts";

async function linesOf(chunks: readonly string[]): Promise<[number, string][]> {
  const lines: [number, string][] = [];
  for await (const { line, text } of readTextLines(
    (async function* () {
      for (const chunk of chunks) {
        await Promise.resolve(); // as a stream, a chunk at a time
        yield chunk;
      }
    })(),
  ))
    lines.push([line, text]);
  return lines;
}

describe("readTextLines", () => {
  it("numbers lines ending in LF, CRLF or CR alike, wherever the stream is cut", async () => {
    const text = '\uFEFF{"a":1}\r\n\r\n{"b":2}\r{"c":3}\n{"d":4}';
    const expected: [number, string][] = [
      [1, '{"a":1}'],
      [2, ""],
      [3, '{"b":2}'],
      [4, '{"c":3}'],
      [5, '{"d":4}'],
    ];
    for (let cut = 0; cut <= text.length; cut++)
      for (let second = cut; second <= text.length; second++)
        expect(
          await linesOf([text.slice(0, cut), text.slice(cut, second), text.slice(second)]),
          `cut at ${cut}, ${second}`,
        ).toEqual(expected);
  });
});
