import type { Logger } from "pino";
import { pruneTargets, type PruneTarget } from "../store/retention.ts";
import type { SyncStore } from "../store/store.ts";

/** Options of {@link Pruner}. */
export interface PrunerOptions {
  readonly store: Pick<SyncStore, "pruneBatch" | "leadership">;
  /** `SYNC_RETENTION_SECONDS` in ms: rows older than this are pruned. */
  readonly retentionMs: number;
  readonly logger: Logger;
  /** Time between passes. @default a tenth of the retention, between 1 s and 60 s */
  readonly everyMs?: number;
  /** Rows per batch (one short transaction each). @default 500 */
  readonly batchSize?: number;
  /** Pause between two batches of a pass, so reads and the cycle go first. @default 10 */
  readonly pauseMs?: number;
  /** The clock. @default Date.now */
  readonly now?: () => number;
}

/** What one pass did. */
export interface PrunePass {
  /** False on a replica that does not lead: only the leader prunes. */
  readonly ran: boolean;
  /** Rows deleted, by target. */
  readonly deleted: Readonly<Record<PruneTarget, number>>;
  /** The pass stopped early because a cycle held the store's writer (SQLite); the next pass goes on. */
  readonly deferred: boolean;
}

/**
 * Keeps storage bounded: on the leader, every so often, deletes feed entries, run records and
 * quarantined items older than the retention horizon, in small batches with a pause between
 * them, each its own short transaction, so reads and the cycle are never held up for long.
 */
export class Pruner {
  readonly #options: PrunerOptions;
  #loop: Promise<void> | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;

  constructor(options: PrunerOptions) {
    this.#options = options;
  }

  /** Time between passes. */
  get everyMs(): number {
    return this.#options.everyMs ?? Math.min(60_000, Math.max(1000, this.#options.retentionMs / 10));
  }

  /** Starts the passes; the first runs at once. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Ends the current pass after its batch and waits for it. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
  }

  /** One pass over every target, now. */
  async pruneOnce(): Promise<PrunePass> {
    const { store, retentionMs, batchSize = 500, pauseMs = 10, now = Date.now } = this.#options;
    const deleted: Record<PruneTarget, number> = { changes: 0, runs: 0, quarantine: 0 };
    if (!store.leadership.isLeader) return { ran: false, deleted, deferred: false };
    const before = new Date(now() - retentionMs);
    for (const target of pruneTargets) {
      for (;;) {
        if (this.#stopping) return { ran: true, deleted, deferred: false };
        const batch = await store.pruneBatch(target, before, batchSize);
        if (batch.deferred) return { ran: true, deleted, deferred: true };
        deleted[target] += batch.deleted;
        if (!batch.more) break;
        await this.#sleep(pauseMs);
      }
    }
    return { ran: true, deleted, deferred: false };
  }

  async #run(): Promise<void> {
    const { logger, retentionMs } = this.#options;
    while (!this.#stopping) {
      try {
        const pass = await this.pruneOnce();
        const total = pass.deleted.changes + pass.deleted.runs + pass.deleted.quarantine;
        if (total > 0) logger.info({ retentionSeconds: retentionMs / 1000, deleted: pass.deleted }, "pruned rows older than the retention horizon");
      } catch (error) {
        logger.warn({ err: error }, "pruning failed; retrying at the next pass");
      }
      await this.#sleep(this.everyMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
