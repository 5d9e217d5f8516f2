import type { CliIo } from "./io.ts";

/** Reads standard input to its end as UTF-8. */
export async function readStdinText(stdin: CliIo["stdin"]): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Asks for a secret on the terminal without echoing it (raw mode: the key never shows on
 * screen or in the scrollback). Backspace edits, Enter ends, Ctrl-C aborts.
 */
export async function promptHidden(io: CliIo, question: string): Promise<string> {
  const { stdin, stderr } = io;
  if (stdin.setRawMode === undefined) throw new Error("standard input is not a terminal");
  // Raw mode first: a key typed (or pasted) the moment the prompt shows must not be echoed.
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  stderr.write(question);
  try {
    return await new Promise<string>((resolve, reject) => {
      let answer = "";
      const onData = (chunk: string) => {
        for (const character of chunk) {
          if (character === "\r" || character === "\n" || character === "\u0004") {
            stdin.off("data", onData);
            resolve(answer);
            return;
          }
          if (character === "\u0003") {
            stdin.off("data", onData);
            reject(Object.assign(new Error("interrupted"), { name: "AbortError" }));
            return;
          }
          if (character === "\u007f" || character === "\b") answer = answer.slice(0, -1);
          else answer += character;
        }
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    stderr.write("\n");
  }
}
