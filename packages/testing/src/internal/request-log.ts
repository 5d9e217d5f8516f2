import type { RequestLogEntry } from "../fake/types.ts";

/** The request log: a bounded list that drops the oldest entries first. */
export class RequestLog {
  readonly #limit: number;
  #entries: RequestLogEntry[] = [];

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`requestLogLimit must be a non-negative integer, got ${String(limit)}`);
    this.#limit = limit;
  }

  add(entry: RequestLogEntry): void {
    if (this.#limit === 0) return;
    this.#entries.push(entry);
    // Trim in batches so a long run does not shift the array on every request.
    if (this.#entries.length > this.#limit * 2 || this.#entries.length > this.#limit + 1000) {
      this.#entries = this.#entries.slice(-this.#limit);
    }
  }

  entries(): readonly RequestLogEntry[] {
    return this.#entries.slice(-this.#limit);
  }

  clear(): void {
    this.#entries = [];
  }
}
