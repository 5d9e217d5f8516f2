import type { Logger } from "pino";
import type { LoopStore } from "../loop/store/loop-store.ts";
import type { PruneBatchOutcome } from "../database/retention.ts";
import { pruneTargets, type PruneTarget } from "../inventory-store/inventory-retention.ts";
import { outcomePruneTargets, type OutcomePruneTarget } from "../loop/store/loop-store.ts";
import type { SyncStore } from "../inventory-store/store.ts";

/** Every kind of row the pruner deletes: the sync store's and the respondent loop's, sessions among them. */
export type PrunedKind = PruneTarget | OutcomePruneTarget | "sessions" | "idempotency-keys";

/** The respondent loop's records and how long they are kept. */
export interface OutcomeRetention {
  readonly store: Pick<LoopStore, "pruneBatch">;
  /** `SYNC_OUTCOME_RETENTION_SECONDS` in ms. */
  readonly retentionMs: number;
}

/** Records of one feature pruned by an age of their own: those older than `now - retentionMs` are deleted in batches. */
export interface RecordRetention {
  /** The store the batches run in (a store that defers is left for the next pass with its other targets). */
  readonly store: unknown;
  /** Deletes at most `limit` records older than `before`. */
  pruneBatch(before: Date, limit: number): Promise<PruneBatchOutcome>;
  readonly retentionMs: number;
}

/**
 * The respondent sessions and how long they are kept: a session that expired before `now -
 * retentionMs` (`SYNC_SESSION_TTL_SECONDS` in ms) is deleted with its attempts (kept a TTL past
 * their expiry, so a late `GET /v1/sessions/{id}` still says `expired`).
 */
export type SessionRetention = RecordRetention;

/** Options of {@link Pruner}. */
export interface PrunerOptions {
  readonly store: Pick<SyncStore, "pruneBatch" | "leadership">;
  /** `SYNC_RETENTION_SECONDS` in ms: rows older than this are pruned. */
  readonly retentionMs: number;
  /** Entry links and outcomes, pruned too when given (`SYNC_OUTCOME_RETENTION_SECONDS` above 0); else kept forever. */
  readonly outcomes?: OutcomeRetention | undefined;
  /** Respondent sessions, pruned when given. */
  readonly sessions?: SessionRetention | undefined;
  /** Idempotency keys of batch requests (SYNC_IDEMPOTENCY_RETENTION_SECONDS), pruned when given. */
  readonly idempotencyKeys?: RecordRetention | undefined;
  readonly logger: Logger;
  /** Time between passes. @default a tenth of the shorter retention, between 1 s and 60 s */
  readonly everyMs?: number;
  /** Rows per batch (one short transaction each). @default 500 */
  readonly batchSize?: number;
  /** Pause between two batches of a pass, so reads and the cycle go first. @default 10 */
  readonly pauseMs?: number;
  /** The clock. @default Date.now */
  readonly now?: () => number;
  /**
   * Per feed, the time of the oldest record a consumer that must not miss any (a sink of events
   * out) has not taken yet: that record and every later one are kept, whatever their age.
   */
  readonly holds?: () => Promise<Partial<Record<"changes" | "outcomes", Date>>>;
}

/** What one pass did. */
export interface PrunePass {
  /** False on a replica that does not lead: only the leader prunes. */
  readonly ran: boolean;
  /** Rows deleted, by kind. */
  readonly deleted: Readonly<Record<PrunedKind, number>>;
  /** The pass stopped early because a cycle held the store's writer (SQLite); the next pass goes on. */
  readonly deferred: boolean;
}

/**
 * Keeps storage bounded: on the leader, every so often, deletes feed entries, run records and
 * quarantined items older than the retention horizon, entry links and outcomes older than
 * theirs when one is set, and respondent sessions a TTL past their expiry, in small batches with a pause between them, each its own short
 * transaction, so reads, the cycle and the receiver are never held up for long.
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
    const { everyMs, retentionMs, outcomes, sessions, idempotencyKeys } = this.#options;
    const shortest = Math.min(
      retentionMs,
      outcomes?.retentionMs ?? Infinity,
      sessions?.retentionMs ?? Infinity,
      idempotencyKeys?.retentionMs ?? Infinity,
    );
    return everyMs ?? Math.min(60_000, Math.max(1000, shortest / 10));
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
    const { store, retentionMs, outcomes, sessions, idempotencyKeys, now = Date.now, holds } = this.#options;
    const deleted: Record<PrunedKind, number> = {
      changes: 0,
      runs: 0,
      quarantine: 0,
      outcomes: 0,
      entries: 0,
      sessions: 0,
      "idempotency-keys": 0,
    };
    if (!store.leadership.isLeader) return { ran: false, deleted, deferred: false };
    const held = (await holds?.()) ?? {};
    // A feed prefix stops at its first row not older than `before`: the oldest record held stays, and all after it.
    const horizon = (retention: number, hold: Date | undefined) => {
      const before = new Date(now() - retention);
      return hold !== undefined && hold < before ? hold : before;
    };
    const steps = pruneSteps(store, new Date(now() - retentionMs), pruneTargets, {
      changes: horizon(retentionMs, held.changes),
    });
    if (outcomes) {
      // Entries too: an outcome's event carries its entry's uid.
      const outcomesBefore = horizon(outcomes.retentionMs, held.outcomes);
      steps.push(
        ...pruneSteps(outcomes.store, new Date(now() - outcomes.retentionMs), outcomePruneTargets, {
          outcomes: outcomesBefore,
          entries: outcomesBefore,
        }),
      );
    }
    for (const [target, records] of [
      ["sessions", sessions],
      ["idempotency-keys", idempotencyKeys],
    ] as const) {
      if (records === undefined) continue;
      const before = new Date(now() - records.retentionMs);
      steps.push({ store: records.store, target, pruneBatch: (limit) => records.pruneBatch(before, limit) });
    }
    // A store that defers (its one writer busy with a cycle) is left for the next pass; the others go on.
    const deferredStores = new Set<unknown>();
    for (const step of steps) {
      if (this.#stopping) break;
      if (deferredStores.has(step.store)) continue;
      if (!(await this.#pruneStep(step, deleted))) deferredStores.add(step.store);
    }
    return { ran: true, deleted, deferred: deferredStores.size > 0 };
  }

  /** Prunes one target batch by batch into `deleted`; false when its store deferred. */
  async #pruneStep(step: PruneStep, deleted: Record<PrunedKind, number>): Promise<boolean> {
    const { batchSize = 500, pauseMs = 10 } = this.#options;
    for (;;) {
      if (this.#stopping) return true;
      const batch = await step.pruneBatch(batchSize);
      if (batch.deferred) return false;
      deleted[step.target] += batch.deleted;
      if (!batch.more) return true;
      await this.#sleep(pauseMs);
    }
  }

  async #run(): Promise<void> {
    const { logger, retentionMs } = this.#options;
    while (!this.#stopping) {
      try {
        const pass = await this.pruneOnce();
        const total = Object.values(pass.deleted).reduce((sum, count) => sum + count, 0);
        if (total > 0) {
          const outcomeRetentionSeconds =
            this.#options.outcomes === undefined ? undefined : this.#options.outcomes.retentionMs / 1000;
          logger.info(
            { retentionSeconds: retentionMs / 1000, outcomeRetentionSeconds, deleted: pass.deleted },
            "pruned rows older than the retention horizon",
          );
        }
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

/** One target of one store, with its horizon. */
interface PruneStep {
  readonly store: unknown;
  readonly target: PrunedKind;
  pruneBatch(limit: number): Promise<PruneBatchOutcome>;
}

function pruneSteps<Target extends PrunedKind>(
  store: { pruneBatch(target: Target, before: Date, limit: number): Promise<PruneBatchOutcome> },
  before: Date,
  targets: readonly Target[],
  beforeByTarget: Partial<Record<Target, Date>> = {},
): PruneStep[] {
  return targets.map((target) => {
    const targetBefore = beforeByTarget[target] ?? before;
    return { store, target, pruneBatch: (limit) => store.pruneBatch(target, targetBefore, limit) };
  });
}
