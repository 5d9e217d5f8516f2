/**
 * Wakes long-polling readers of the change feed when the sequence moves. Commits of this
 * replica publish at once; commits of another replica (PostgreSQL) are noticed by polling the
 * store's latest sequence, only while someone is waiting.
 */
export class ChangeNotifier {
  readonly #readLatest: () => Promise<number>;
  readonly #pollMs: number;
  readonly #waiters = new Set<{ readonly after: number; readonly wake: () => void }>();
  #latest = 0;
  #poller: NodeJS.Timeout | undefined;
  #closed = false;

  /** @param readLatest reads the store's latest sequence. @param pollMs how often to poll while readers wait. */
  constructor(readLatest: () => Promise<number>, pollMs = 1000) {
    this.#readLatest = readLatest;
    this.#pollMs = pollMs;
  }

  /** A commit of this replica reached `sequence`. */
  publish(sequence: number): void {
    if (sequence <= this.#latest) return;
    this.#latest = sequence;
    for (const waiter of this.#waiters) if (sequence > waiter.after) waiter.wake();
  }

  /**
   * Resolves once the feed holds a sequence above `after`, after `timeoutMs`, when `signal`
   * aborts (the reader left) or when the notifier closes, whichever comes first. The caller reads
   * the feed again afterwards: resolving says "look again", not "there is news".
   */
  waitForSequenceAbove(after: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || this.#latest > after || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        after,
        wake: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", waiter.wake);
          this.#waiters.delete(waiter);
          if (this.#waiters.size === 0) this.#stopPolling();
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      signal?.addEventListener("abort", waiter.wake, { once: true });
      this.#waiters.add(waiter);
      this.#startPolling();
    });
  }

  /** Wakes every reader (shutdown) and stops polling. */
  close(): void {
    this.#closed = true;
    for (const waiter of [...this.#waiters]) waiter.wake();
    this.#stopPolling();
  }

  #startPolling(): void {
    if (this.#poller) return;
    this.#poller = setInterval(() => {
      this.#readLatest().then(
        (sequence) => {
          this.publish(sequence);
        },
        () => undefined, // the store is unreachable: readers simply time out
      );
    }, this.#pollMs);
    this.#poller.unref();
  }

  #stopPolling(): void {
    clearInterval(this.#poller);
    this.#poller = undefined;
  }
}
