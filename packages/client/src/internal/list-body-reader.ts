import { raceWithSignal } from "./abort.ts";
import { JsonListScanner } from "./json-list-scanner.ts";

/** One element of the list as read from the body, before validation. */
export interface RawListItem {
  /** Position in the list as received. */
  readonly index: number;
  readonly value: unknown;
  /** The element's JSON text as the body carried it. */
  readonly text: string;
}

/** No byte of the body arrived within the idle timeout. */
export class BodyIdleTimeoutError extends Error {
  override readonly name = "BodyIdleTimeoutError";
  readonly timeout: number;

  constructor(timeout: number) {
    super(`no data for ${timeout} ms while reading the body`);
    this.timeout = timeout;
  }
}

/** Options of a {@link ListBodyReader}. */
export interface ListBodyReaderOptions {
  /** The top-level field whose array is read element by element. */
  readonly listKey: string;
  /** Cancels a read in progress (the caller's abort or the call's deadline). */
  readonly signal: AbortSignal | undefined;
  /** The longest wait for the next chunk, in ms (`false`: none). The consumer's own time between reads does not count. */
  readonly idleTimeout: number | false;
}

/**
 * Reads a JSON object body holding one long list chunk by chunk: each read returns the list
 * elements the chunk completed, parsed; the other top-level fields are collected as they pass.
 * Nothing holds more than one chunk and one element of the body at a time.
 *
 * Once the body has said `hasError: true`, further elements are dropped unread by the caller:
 * they belong to an error response.
 */
export class ListBodyReader {
  /** The top-level fields other than the list, as `JSON.parse` would build them (own properties, the last duplicate winning). */
  readonly fields: Record<string, unknown> = {};
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #scanner: JsonListScanner;
  readonly #options: ListBodyReaderOptions;
  #done = false;
  #hasError = false;
  /** The read started ahead of the consumer, if any. */
  #ahead: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  constructor(body: ReadableStream<Uint8Array> | null, options: ListBodyReaderOptions) {
    this.#reader = body?.getReader();
    this.#scanner = new JsonListScanner(options.listKey);
    this.#options = options;
  }

  /** Whether a top-level `hasError: true` has been read. */
  get hasError(): boolean {
    return this.#hasError;
  }

  /** Whether the list field was present (and so is not among {@link ListBodyReader.fields}). */
  get listSeen(): boolean {
    return this.#scanner.listSeen;
  }

  /**
   * The elements the next chunk completed (possibly none), or `undefined` once the body is
   * complete and well-formed.
   *
   * @throws JsonScanError when the body is not JSON or ends too soon; BodyIdleTimeoutError; the
   *   runtime's network error; the signal's reason.
   */
  async read(): Promise<RawListItem[] | undefined> {
    if (this.#done) return undefined;
    let chunk: Uint8Array | undefined;
    try {
      chunk = this.#reader ? await this.#readChunk(this.#reader) : undefined;
    } catch (error) {
      // The JSON document is self-delimiting: once it is complete, a connection that dies (or
      // stalls) before the runtime has signalled the end of the body lost nothing. undici reports
      // "other side closed" when a server closes an idle keep-alive connection while a slow
      // consumer still has the tail of the body queued. Anything else is a real failure.
      if (!this.#scanner.complete || this.#options.signal?.aborted === true) throw error;
      chunk = undefined;
    }
    const parts = chunk === undefined ? this.#scanner.end() : this.#scanner.writeBytes(chunk);
    if (chunk === undefined) this.#done = true;
    const items: RawListItem[] = [];
    for (const part of parts) {
      if (part.kind === "item") {
        if (!this.#hasError) items.push(part);
        continue;
      }
      Object.defineProperty(this.fields, part.key, {
        value: part.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      if (part.key === "hasError" && part.value === true) this.#hasError = true;
    }
    // A complete body ends the reads, even when its last chunk completed nothing new.
    return this.#done && items.length === 0 ? undefined : items;
  }

  /** Stops reading and lets the connection go. Safe to call at any time, more than once. */
  cancel(): void {
    if (this.#done) return;
    this.#done = true;
    this.#reader?.cancel().catch(() => undefined);
  }

  /**
   * The next chunk. One read is kept in flight ahead of the consumer, so the next chunk is on its
   * way while the consumer works through this one (a consumer paced by other requests would
   * otherwise wait on the network at every chunk): at most one chunk more is held. The idle
   * timeout runs only while the consumer is waiting.
   */
  async #readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array | undefined> {
    const { signal, idleTimeout } = this.#options;
    for (;;) {
      const ahead = this.#ahead ?? reader.read();
      this.#ahead = undefined;
      const { done, value } = await withTimeout(raceWithSignal(ahead, signal), idleTimeout);
      if (done) return undefined;
      if (value.byteLength === 0) continue;
      this.#ahead = reader.read();
      // Read for the next call; a failure there is reported by that call (or dropped after a cancel).
      this.#ahead.catch(() => undefined);
      return value;
    }
  }
}

function withTimeout<T>(promise: Promise<T>, timeout: number | false): Promise<T> {
  if (timeout === false) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new BodyIdleTimeoutError(timeout));
    }, timeout);
    promise
      .finally(() => {
        clearTimeout(timer);
      })
      .then(resolve, reject);
  });
}
