import { randomUUID } from "node:crypto";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FetchFunction as ClientFetch } from "@sds/client";
import type { OperationMatcher } from "./counting-fetch.ts";

/** Bytes of the list body a spool holds in memory before it writes to its temporary file. */
export const DEFAULT_SPOOL_MEMORY_BYTES = 4 * 1024 * 1024;

/** Largest piece handed to the reader from the temporary file. */
const FILE_READ_BYTES = 64 * 1024;

/** Options of {@link spoolListBody}. */
export interface ListSpoolOptions {
  /** Bytes held in memory before the rest goes to a temporary file. @default {@link DEFAULT_SPOOL_MEMORY_BYTES} */
  readonly memoryBytes?: number;
  /** Where the temporary file is created (and at once unlinked). @default `os.tmpdir()` */
  readonly directory?: string;
}

/**
 * Wraps `fetch` so the Get Surveys body is drained off the network as fast as it arrives into a
 * spool (memory up to `memoryBytes`, a temporary file beyond), and the client reads the spool.
 *
 * Why: the cycle reads the list at the pace of its per-survey fetches, tens of seconds for a large
 * inventory. Left on the socket, undici stops reading it (backpressure), the upstream has long
 * handed the whole body to the kernel, and its keep-alive or a load balancer's idle timeout closes
 * the connection: undici then errors the body stream with "terminated: other side closed", and a
 * stream that errors discards the chunks it had queued, so the cycle fails though every byte had
 * arrived. Draining at network speed ends the response before any such timeout.
 *
 * What stays as it was:
 * - A network failure (or a `ListTooLargeError` from the size limit below) reaches the reader
 *   where the spooled data runs out: a truncated body is still an error, never a short list.
 * - The client's idle timeout still catches a stalled upstream: it runs while the reader waits,
 *   and the reader waits only once the spool is empty, that is, on the network.
 * - Memory stays bounded: the list is not held whole; the file is unlinked right after it is
 *   opened (nothing is left behind, even on SIGKILL) and closed on end, error, cancel or abort.
 *   Where no file can be made (a read-only or full disk) the spool holds only `memoryBytes` and
 *   waits for the reader: the behaviour before the spool, with a larger buffer.
 * Other operations pass as they are (their bodies are small and read whole at once); `operationOf`
 * tells which request is Get Surveys (the matcher built from the same paths as the client).
 */
export function spoolListBody(
  inner: ClientFetch,
  operationOf: OperationMatcher,
  options: ListSpoolOptions = {},
): ClientFetch {
  return async (request, init) => {
    const response = await inner(request, init);
    if (operationOf(init?.method ?? request.method, request.url) !== "listSurveys" || response.body === null)
      return response;
    // The spool holds what carries the signal, not the signal alone: a Request's signal follows the
    // caller's only while the Request lives (undici links them weakly, nodejs/undici#1926), and
    // once the caller drops the Request a collected link would leave the body unabortable.
    const spool = new BodySpool(response.body, init?.signal == null ? request : init, options);
    return new Response(spool.readable, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** A range of the temporary file not yet read. */
interface FileRange {
  start: number;
  readonly end: number;
}

/** One body, drained into memory and a temporary file and read back in order. */
class BodySpool {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #memoryLimit: number;
  readonly #directory: string;
  /** The Request (or init) whose signal abandons the body: held, so its signal keeps following the caller's. */
  readonly #signalOwner: { readonly signal?: AbortSignal | null | undefined };
  readonly #network: ReadableStreamDefaultReader<Uint8Array>;
  /** Spooled data in body order: chunks in memory, ranges of the file. */
  #segments: (Uint8Array | FileRange)[] = [];
  #memoryBytes = 0;
  #file: FileHandle | undefined;
  /** Set when the file could not be unlinked at once (a platform that refuses to unlink an open file). */
  #filePath: string | undefined;
  #fileEnd = 0;
  #ended = false;
  /** How the body failed (network, size limit, abort, cancel); reported once the spooled data is read. */
  #failure: { readonly error: unknown } | undefined;
  /** Abandoned by an abort or the reader's cancel: reads fail at once, spooled data or not. */
  #stopped = false;
  #released = false;
  /** No temporary file could be made: memory only, with backpressure. */
  #fileUnavailable = false;
  /** Wakes the reader waiting for data. */
  #wake: (() => void) | undefined;
  /** Wakes the drain waiting for room in memory. */
  #drainWake: (() => void) | undefined;
  readonly #onAbort = () => {
    this.#stop(this.#signal?.reason);
  };

  get #signal(): AbortSignal | null | undefined {
    return this.#signalOwner.signal;
  }

  constructor(
    body: ReadableStream<Uint8Array>,
    signalOwner: { readonly signal?: AbortSignal | null | undefined },
    options: ListSpoolOptions,
  ) {
    this.#memoryLimit = options.memoryBytes ?? DEFAULT_SPOOL_MEMORY_BYTES;
    this.#directory = options.directory ?? tmpdir();
    this.#signalOwner = signalOwner;
    const signal = this.#signal;
    this.#network = body.getReader();
    this.readable = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.#pull(controller),
        cancel: (reason) => {
          this.#stop(reason);
        },
      },
      // Nothing read ahead here: the client keeps its own one chunk ahead.
      { highWaterMark: 0 },
    );
    if (signal?.aborted === true) this.#stop(signal.reason);
    else {
      signal?.addEventListener("abort", this.#onAbort, { once: true });
      void this.#drain();
    }
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await this.#network.read();
        if (this.#released) return;
        if (done) break;
        await this.#append(value);
      }
      this.#ended = true;
    } catch (error) {
      this.#failure ??= { error };
    } finally {
      this.#notify();
    }
  }

  async #append(chunk: Uint8Array): Promise<void> {
    if (chunk.byteLength === 0) return;
    const file =
      this.#memoryBytes + chunk.byteLength <= this.#memoryLimit || this.#fileUnavailable
        ? undefined
        : (this.#file ?? (await this.#openFile()));
    if (file === undefined) {
      if (this.#fileUnavailable) await this.#roomInMemory(chunk.byteLength);
      if (this.#released) return;
      this.#segments.push(chunk);
      this.#memoryBytes += chunk.byteLength;
    } else {
      const start = this.#fileEnd;
      let written = 0;
      while (written < chunk.byteLength) {
        written += (await file.write(chunk, written, chunk.byteLength - written, start + written)).bytesWritten;
      }
      if (this.#released) return;
      this.#fileEnd += chunk.byteLength;
      const last = this.#segments.at(-1);
      if (last !== undefined && !(last instanceof Uint8Array) && last.end === start)
        this.#segments[this.#segments.length - 1] = { start: last.start, end: this.#fileEnd };
      else this.#segments.push({ start, end: this.#fileEnd });
    }
    this.#notify();
  }

  /**
   * The temporary file, or `undefined` when none can be made (a read-only or full disk): the spool
   * then holds what memory allows and waits for the reader, as the socket did before it, rather
   * than fail every cycle.
   */
  async #openFile(): Promise<FileHandle | undefined> {
    const path = join(this.#directory, `sds-sync-list-${randomUUID()}.spool`);
    let file: FileHandle;
    try {
      file = await open(path, "wx+", 0o600);
    } catch {
      this.#fileUnavailable = true;
      return undefined;
    }
    try {
      await unlink(path);
    } catch {
      this.#filePath = path;
    }
    this.#file = file;
    // Stopped while the file was being opened: #release ran without it.
    if (this.#released) await this.#closeFile();
    return file;
  }

  /** Waits until `bytes` more fit in memory (or memory is empty: one chunk always fits). */
  async #roomInMemory(bytes: number): Promise<void> {
    while (!this.#released && this.#memoryBytes > 0 && this.#memoryBytes + bytes > this.#memoryLimit) {
      await new Promise<void>((resolve) => {
        this.#drainWake = resolve;
      });
    }
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      // Abandoned (abort or cancel): no more data, even what a file read brought back meanwhile.
      if (this.#stopped) {
        controller.error(this.#failure?.error);
        return;
      }
      const segment = this.#segments[0];
      if (segment instanceof Uint8Array) {
        this.#segments.shift();
        this.#memoryBytes -= segment.byteLength;
        this.#notifyDrain();
        controller.enqueue(segment);
        return;
      }
      if (segment !== undefined && this.#file !== undefined) {
        const length = Math.min(FILE_READ_BYTES, segment.end - segment.start);
        const buffer = new Uint8Array(length);
        const { bytesRead } = await this.#file.read(buffer, 0, length, segment.start);
        // Read again, not narrowed: an abort may have come during the file read.
        if (this.#abandoned()) continue;
        if (bytesRead === 0) throw new Error("the list spool file ended before the data written to it");
        segment.start += bytesRead;
        if (segment.start === segment.end) this.#segments.shift();
        controller.enqueue(bytesRead === length ? buffer : buffer.subarray(0, bytesRead));
        return;
      }
      if (this.#failure !== undefined) {
        await this.#release();
        controller.error(this.#failure.error);
        return;
      }
      if (this.#ended) {
        await this.#release();
        controller.close();
        return;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #abandoned(): boolean {
    return this.#stopped;
  }

  #notifyDrain(): void {
    const wake = this.#drainWake;
    this.#drainWake = undefined;
    wake?.();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Abandons the body (abort or the reader's cancel): the network read stops, spooled data is dropped. */
  #stop(reason: unknown): void {
    if (this.#released) return;
    this.#stopped = true;
    this.#failure ??= { error: reason };
    this.#segments = [];
    this.#memoryBytes = 0;
    this.#network.cancel(reason).catch(() => undefined);
    void this.#release();
    this.#notify();
    this.#notifyDrain();
  }

  async #release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    await this.#closeFile();
  }

  async #closeFile(): Promise<void> {
    const file = this.#file;
    const path = this.#filePath;
    this.#file = undefined;
    this.#filePath = undefined;
    // close() waits for the reads and writes in flight on the handle.
    await file?.close().catch(() => undefined);
    if (path !== undefined) await unlink(path).catch(() => undefined);
  }
}
