/** One line of a text stream and its number (the first is 1). */
export interface TextLine {
  readonly line: number;
  readonly text: string;
}

/**
 * The lines of a text stream as they are read (ending in LF, CRLF or CR; a byte-order mark
 * dropped), blank ones included, so that numbers match an editor's. Memory holds one chunk and
 * one line, whatever the size of the file.
 */
export async function* readTextLines(chunks: AsyncIterable<string>): AsyncGenerator<TextLine, void, undefined> {
  let pending = "";
  let line = 1;
  let started = false;
  /** The last chunk ended in CR: a LF starting the next one ends no line of its own. */
  let afterCarriageReturn = false;
  for await (const chunk of chunks) {
    let text = chunk;
    if (!started && text !== "") {
      started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    if (text === "") continue;
    if (afterCarriageReturn) {
      afterCarriageReturn = false;
      if (text.startsWith("\n")) text = text.slice(1);
      if (text === "") continue;
    }
    afterCarriageReturn = text.endsWith("\r");
    const pieces = (pending + text).split(/\r\n|\n|\r/);
    pending = pieces.pop() ?? "";
    for (const piece of pieces) yield { line: line++, text: piece };
  }
  if (pending !== "") yield { line, text: pending };
}
