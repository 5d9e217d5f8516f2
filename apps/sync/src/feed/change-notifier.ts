import { LongPollLimitError } from "../common/errors.ts";
import type { longPollFeeds, SyncMetrics } from "../metrics/sync-metrics.ts";

/** Readers that may wait on each feed at once unless `SYNC_MAX_LONG_POLLS` says otherwise. */
export const DEFAULT_MAX_LONG_POLLS = 1000;

/** Options of {@link ChangeNotifier}. */
export interface ChangeNotifierOptions {
  /** How often to poll the store while readers wait, in ms. @default 1000 */
  readonly pollMs?: number;
  /** Readers waiting at once at most (`SYNC_MAX_LONG_POLLS`); one more is refused with {@link LongPollLimitError}. */
  readonly maxWaiters: number;
  /** Learns the number of waiting readers whenever it changes (a gauge). */
  readonly onWaiting?: (waiting: number) => void;
  /** Learns of each reader refused (a counter). */
  readonly onRefused?: () => void;
}

/**
 * Wakes long-polling readers of a feed (changes, outcomes) when its sequence moves. Commits of
 * this replica publish at once; commits of another replica (PostgreSQL) are noticed by polling
 * the store's latest sequence, only while someone is waiting. At most `maxWaiters` readers wait.
 */
export class ChangeNotifier {
  readonly #readLatest: () => Promise<number>;
  readonly #pollMs: number;
  readonly #maxWaiters: number;
  readonly #onWaiting: (waiting: number) => void;
  readonly #onRefused: () => void;
  readonly #waiters = new Set<{ readonly after: number; readonly wake: () => void }>();
  readonly #listeners = new Set<(sequence: number) => void>();
  #latest = 0;
  #poller: NodeJS.Timeout | undefined;
  #closed = false;

  /** @param readLatest reads the store's latest sequence. */
  constructor(readLatest: () => Promise<number>, options: ChangeNotifierOptions) {
    this.#readLatest = readLatest;
    this.#pollMs = options.pollMs ?? 1000;
    this.#maxWaiters = options.maxWaiters;
    this.#onWaiting = options.onWaiting ?? (() => undefined);
    this.#onRefused = options.onRefused ?? (() => undefined);
  }

  /** Readers waiting now. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** A commit of this replica reached `sequence`. */
  publish(sequence: number): void {
    if (sequence <= this.#latest) return;
    this.#latest = sequence;
    for (const waiter of this.#waiters) if (sequence > waiter.after) waiter.wake();
    for (const listener of this.#listeners) listener(sequence);
  }

  /**
   * Calls `listener` on every commit of this replica (not on those of others, which only polling
   * sees; it is no long-poll and takes no waiting place). Returns the unsubscribe.
   */
  subscribe(listener: (sequence: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves once the feed holds a sequence above `after`, after `timeoutMs`, when `signal`
   * aborts (the reader left) or when the notifier closes, whichever comes first. The caller reads
   * the feed again afterwards: resolving says "look again", not "there is news". Rejects at once
   * with {@link LongPollLimitError} when `maxWaiters` readers are waiting already.
   */
  waitForSequenceAbove(after: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || this.#latest > after || signal?.aborted) return Promise.resolve();
    if (this.#waiters.size >= this.#maxWaiters) {
      this.#onRefused();
      return Promise.reject(new LongPollLimitError(this.#maxWaiters));
    }
    return new Promise((resolve) => {
      const waiter = {
        after,
        wake: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", waiter.wake);
          if (!this.#waiters.delete(waiter)) return;
          this.#onWaiting(this.#waiters.size);
          if (this.#waiters.size === 0) this.#stopPolling();
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      signal?.addEventListener("abort", waiter.wake, { once: true });
      this.#waiters.add(waiter);
      this.#onWaiting(this.#waiters.size);
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

/**
 * The notifier of one feed as the service runs it: `SYNC_MAX_LONG_POLLS` waiting places, its
 * waiting and refused readers counted under the feed's label.
 */
export function feedNotifier(
  feed: (typeof longPollFeeds)[number],
  readLatest: () => Promise<number>,
  config: { readonly maxLongPolls?: number | undefined },
  metrics: Pick<SyncMetrics, "longPollsWaiting" | "longPollsRefused">,
): ChangeNotifier {
  return new ChangeNotifier(readLatest, {
    maxWaiters: config.maxLongPolls ?? DEFAULT_MAX_LONG_POLLS,
    onWaiting: (waiting) => {
      metrics.longPollsWaiting.set({ feed }, waiting);
    },
    onRefused: () => {
      metrics.longPollsRefused.inc({ feed });
    },
  });
}
