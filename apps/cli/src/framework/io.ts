import { once } from "node:events";

/** A stream the CLI writes to: stdout or stderr, or a stand-in with the same shape. */
export interface OutputStream {
  write(chunk: string): boolean;
  once(event: "drain", listener: () => void): unknown;
  readonly isTTY?: boolean;
  /** Width of the terminal, when the stream is one. */
  readonly columns?: number;
}

/** The process's streams and environment, passed around instead of reached for globally. */
export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  readonly env: NodeJS.ProcessEnv;
}

/** The real process's streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/**
 * Writes `text` and waits for the stream to drain when its buffer is full, so that a large
 * output (10,000 surveys to a slow pipe) does not pile up in memory.
 */
export async function writeText(stream: OutputStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream as unknown as NodeJS.EventEmitter, "drain");
}
