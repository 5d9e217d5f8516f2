import type { Logger } from "pino";
import type { EventPosition, LoopStore } from "../loop/store/loop-store.ts";
import { systemClock, type Clock } from "../loop/runtime/clock.ts";
import type { EventSink } from "./event-sink.ts";
import type { EventSource } from "./feed-events.ts";

/** How long to wait before the next step; an idle pause ends early on news of a commit. */
interface Pause {
  readonly ms: number;
  readonly idle: boolean;
}

/** What the relay tells the metrics. */
export interface RelayObserver {
  delivered(sink: string, feed: string, count: number): void;
  failed(sink: string, feed: string): void;
  skipped(sink: string, feed: string, count: number): void;
}

/** Options of {@link FeedRelay}. */
export interface FeedRelayOptions {
  readonly sink: EventSink;
  readonly source: EventSource;
  readonly positions: Pick<LoopStore, "eventPositions" | "saveEventPosition">;
  /** Whether this replica leads (holds the sync lock): only the leader relays. */
  readonly isLeader: () => boolean;
  readonly logger: Logger;
  readonly observer?: RelayObserver;
  /** How long one event is retried before the sink is marked failing; undefined: never marked (NATS). */
  readonly retryForMs?: number | undefined;
  /** Time between two reads of a feed that had nothing new, and between leadership checks. @default 200 */
  readonly pollMs?: number;
  readonly clock?: Clock;
  /** The pauses between retries. @default first within 1 s, doubling, at most `sink.maxBackoffMs` */
  readonly backoff?: RelayBackoff;
  /** A number in [0, 1) for the jitter. @default Math.random */
  readonly random?: () => number;
  /**
   * Subscribes to commits of this replica to the feed (its notifier): the relay then reads at
   * once (after a few milliseconds that gather a burst) instead of at its next poll.
   */
  readonly news?: (listener: () => void) => () => void;
}

/** Where one relay stands, for the status and the warnings. */
export interface RelayState {
  readonly sink: string;
  readonly feed: string;
  /** The last sequence acknowledged, undefined before the relay first ran on this replica. */
  readonly position: number | undefined;
  readonly lastError: string | null;
  /** Since when the event at the head has been failing (epoch ms). */
  readonly failingSinceMs: number | undefined;
  /** Whether the sink is marked failing (retried past its time). */
  readonly failing: boolean;
}

/** The first pause after a failure, before jitter. */
const FIRST_BACKOFF_MS = 1000;

/** How the pauses between retries grow: from `firstMs`, doubling, at most `maxMs` (and the sink's own longest pause). */
export interface RelayBackoff {
  readonly firstMs: number;
  readonly maxMs?: number;
}
/** How long news of a commit waits for more before the relay reads: a burst goes out as one batch. */
const NEWS_GATHER_MS = 10;
/** Positions are stored at most this often while events flow (and whenever the relay goes idle or fails). */
const SAVE_EVERY_MS = 250;

/**
 * Relays one feed to one sink, on the leader: reads the feed after the last acknowledged
 * position, hands the sink the events in sequence order, and stores the position the sink
 * reached (in the loop store, so a new leader continues from it). A failure holds the later
 * events back and is retried with exponential backoff and jitter (the first retry within a
 * second, doubling, at most `sink.maxBackoffMs` apart); past `retryForMs` the sink is marked
 * failing and retried at the longest pause until it answers, or at once on {@link resume}.
 * Records pruned before they were delivered are said loudly (an error log and a counter).
 */
export class FeedRelay {
  readonly #options: FeedRelayOptions;
  readonly #clock: Clock;
  readonly #stop = new AbortController();
  #wake = new AbortController();
  /** Aborted by news of a commit: ends an idle pause. */
  #news = new AbortController();
  #newsPending = false;
  #unsubscribe: (() => void) | undefined;
  #savedAtMs = Number.NEGATIVE_INFINITY;
  #unsaved = false;
  #running: Promise<void> | undefined;
  #position: number | undefined;
  #attempts = 0;
  #lastError: string | null = null;
  #failingSinceMs: number | undefined;
  #failing = false;

  constructor(options: FeedRelayOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  get state(): RelayState {
    return {
      sink: this.#options.sink.name,
      feed: this.#options.source.feed,
      position: this.#position,
      lastError: this.#lastError,
      failingSinceMs: this.#failingSinceMs,
      failing: this.#failing,
    };
  }

  start(): void {
    this.#unsubscribe ??= this.#options.news?.(() => {
      this.#onNews();
    });
    this.#running ??= this.#run();
  }

  /** Retries at once (an operator's resume), with the backoff started afresh. */
  resume(): void {
    this.#attempts = 0;
    this.#wake.abort();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#stop.abort();
    this.#wake.abort();
    await this.#running;
  }

  #onNews(): void {
    if (this.#newsPending) return;
    this.#newsPending = true;
    void this.#clock.sleep(NEWS_GATHER_MS, this.#stop.signal).then(() => {
      this.#newsPending = false;
      this.#news.abort();
    });
  }

  async #run(): Promise<void> {
    const { pollMs = 200, isLeader, logger } = this.#options;
    while (!this.#stop.signal.aborted) {
      if (!isLeader()) {
        // A follower forgets where it stood: the leader moves on meanwhile.
        this.#position = undefined;
        await this.#pause(pollMs * 5);
        continue;
      }
      let pause: Pause;
      try {
        pause = await this.#step();
      } catch (error) {
        // The store failed (the feed or the position could not be read or written).
        this.#position = undefined;
        this.#attempts += 1;
        logger.warn(
          { err: error, sink: this.#options.sink.name, feed: this.#options.source.feed },
          "events: relay step failed",
        );
        pause = { ms: this.#backoffMs(), idle: false };
      }
      if (pause.ms > 0) await this.#pause(pause.ms, pause.idle);
    }
    // Stopping: what was acknowledged and not yet stored is stored now.
    if (this.#unsaved && this.#position !== undefined && isLeader())
      await this.#save(this.#position, true).catch(() => undefined);
  }

  /** One batch: read, deliver, store the position. Resolves with the pause before the next. */
  async #step(): Promise<Pause> {
    const { sink, source, pollMs = 200 } = this.#options;
    // News from here on ends the idle pause that may follow this read.
    if (this.#news.signal.aborted) this.#news = new AbortController();
    const position = this.#position ?? (await this.#loadPosition());
    const events = await source.read(position, sink.batchSize);
    const first = events[0];
    if (first === undefined) {
      if (this.#unsaved) await this.#save(position, true);
      return { ms: pollMs, idle: true };
    }
    let from = position;
    if (first.sequence > position + 1) from = await this.#skipPruned(position, first.sequence - 1);
    const wanted = events.filter((event) => sink.accepts(event));
    const report = wanted.length === 0 ? { delivered: 0 } : await sink.deliver(wanted, this.#stop.signal);
    const failedEvent = report.error === undefined ? undefined : wanted[report.delivered];
    const reached = failedEvent === undefined ? (events.at(-1)?.sequence ?? from) : failedEvent.sequence - 1;
    if (report.delivered > 0) this.#options.observer?.delivered(sink.name, source.feed, report.delivered);
    if (failedEvent === undefined || report.error === undefined) {
      const recovered = this.#lastError !== null;
      this.#attempts = 0;
      this.#lastError = null;
      this.#failingSinceMs = undefined;
      if (this.#failing || recovered)
        this.#options.logger.info({ sink: sink.name, feed: source.feed }, "events: the sink acknowledges again");
      this.#failing = false;
      await this.#save(reached, recovered);
      return events.length === sink.batchSize ? { ms: 0, idle: false } : { ms: pollMs, idle: true };
    }
    if (this.#stop.signal.aborted) {
      await this.#save(reached, true);
      return { ms: 0, idle: false };
    }
    if (report.delivered > 0) {
      // Progress, then a failure of a later event: that event's retries start afresh.
      this.#attempts = 0;
      this.#failingSinceMs = undefined;
    }
    this.#fail(report.error, failedEvent.id);
    await this.#save(reached, true);
    return { ms: this.#backoffMs(), idle: false };
  }

  /** The stored position, or (a sink never run) the feed's horizon: everything kept is delivered. */
  async #loadPosition(): Promise<number> {
    const { sink, source, positions } = this.#options;
    const stored = (await positions.eventPositions()).find((row) => row.sink === sink.name && row.feed === source.feed);
    const position = stored?.position ?? (await source.horizon());
    this.#position = position;
    if (stored?.failingSince != null) {
      // A new leader keeps the failing mark (and its clock) of the old one.
      this.#failing = true;
      this.#failingSinceMs = Date.parse(stored.failingSince);
      this.#lastError = stored.lastError;
    }
    if (stored === undefined) await this.#save(position, true);
    return position;
  }

  /** Records pruned before this sink got them: said loudly, then passed over. */
  async #skipPruned(position: number, horizon: number): Promise<number> {
    const { sink, source, logger, observer } = this.#options;
    logger.error(
      { sink: sink.name, feed: source.feed, from: position + 1, to: horizon },
      `events: ${source.feed} ${position + 1} to ${horizon} were pruned before ${sink.name} got them; they are skipped (consumers read them nowhere but their own copies)`,
    );
    observer?.skipped(sink.name, source.feed, horizon - position);
    await this.#save(horizon, true);
    return horizon;
  }

  #fail(error: string, eventId: string): void {
    const { sink, source, logger, retryForMs, observer } = this.#options;
    const now = this.#clock.now();
    this.#attempts += 1;
    this.#failingSinceMs ??= now;
    if (this.#lastError === null)
      logger.warn({ sink: sink.name, feed: source.feed, event: eventId, error }, "events: delivery failed; retrying");
    this.#lastError = error;
    observer?.failed(sink.name, source.feed);
    if (!this.#failing && retryForMs !== undefined && now - this.#failingSinceMs >= retryForMs) {
      this.#failing = true;
      logger.error(
        { sink: sink.name, feed: source.feed, event: eventId, error },
        `events: ${sink.name} is failing: ${eventId} was retried for ${Math.round(retryForMs / 60_000)} minutes; retried every ${Math.round(sink.maxBackoffMs / 1000)} s until it answers or an operator resumes it`,
      );
    }
  }

  /**
   * Moves the position to `position` and stores it: at once when `force` (a failure, a recovery,
   * going idle), else at most every {@link SAVE_EVERY_MS} while events flow. What a crash loses
   * is sent again with the same ids.
   */
  async #save(position: number, force: boolean): Promise<void> {
    const previous = this.#position;
    this.#position = position;
    if (!force && previous === position && !this.#unsaved) return;
    const now = this.#clock.now();
    if (!force && now - this.#savedAtMs < SAVE_EVERY_MS) {
      this.#unsaved = true;
      return;
    }
    const row: EventPosition = {
      sink: this.#options.sink.name,
      feed: this.#options.source.feed,
      position,
      updatedAt: new Date(this.#clock.now()).toISOString(),
      failingSince:
        this.#failing && this.#failingSinceMs !== undefined ? new Date(this.#failingSinceMs).toISOString() : null,
      lastError: this.#lastError,
    };
    await this.#options.positions.saveEventPosition(row);
    this.#savedAtMs = now;
    this.#unsaved = false;
  }

  /** Exponential backoff with jitter: within the first pause (1 s), doubling, at most the longest. */
  #backoffMs(): number {
    const { random = Math.random, sink, backoff } = this.#options;
    const longest = Math.min(sink.maxBackoffMs, backoff?.maxMs ?? Number.POSITIVE_INFINITY);
    const first = backoff?.firstMs ?? FIRST_BACKOFF_MS;
    const ceiling = Math.min(longest, first * 2 ** Math.max(0, this.#attempts - 1));
    return Math.round(ceiling * (0.5 + random() / 2));
  }

  async #pause(ms: number, idle = false): Promise<void> {
    if (this.#wake.signal.aborted) this.#wake = new AbortController();
    const signals = [this.#stop.signal, this.#wake.signal, ...(idle ? [this.#news.signal] : [])];
    await this.#clock.sleep(ms, AbortSignal.any(signals));
  }
}
