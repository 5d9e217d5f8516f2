import type { Logger } from "pino";
import { SyncError, type HttpMeaning } from "../common/errors.ts";
import type { SyncMetrics } from "../metrics/sync-metrics.ts";
import type { RunInput, SyncStore } from "../inventory-store/store.ts";
import type { ChangeNotifier } from "../feed/change-notifier.ts";
import { ClosureGuard, type ClosureGuardSettings, type HeldClosures } from "../cycle/closure-guard.ts";
import { COLLECTIONS_MAX_AGE_MS, refreshCollections } from "../cycle/collections.ts";
import type { CycleResult } from "../cycle/cycle-result.ts";
import { runCycle, type CycleSettings } from "../cycle/run-cycle.ts";
import { SurveyIndex } from "../survey-index/survey-index.ts";
import type { Upstream } from "../upstream/upstream.ts";
import { describeUpstreamFailure, isKeyRefused } from "../upstream/upstream-failure.ts";
import { startNap, type Nap } from "./nap.ts";
import { ReplicaRole } from "./replica-role.ts";

/** `POST /v1/sync/run` reached a replica that does not lead. */
export class NotLeaderError extends SyncError {
  override name = "NotLeaderError" as const;
  override get http(): HttpMeaning {
    return { status: 409, code: "not_leader", message: this.message, logged: false };
  }
}

/** The engine is shutting down and takes no more work. */
export class ShuttingDownError extends SyncError {
  override name = "ShuttingDownError" as const;
  override get http(): HttpMeaning {
    return { status: 503, code: "shutting_down", message: "the service is shutting down", logged: false };
  }
}

/** A manual run was refused: too soon after the last one, or the upstream asked to wait (429 Retry-After). Answered 429. */
export class ManualRunRefusedError extends SyncError {
  override name = "ManualRunRefusedError" as const;
  /** How long until a manual run may start, in ms. */
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
  override get http(): HttpMeaning {
    return {
      status: 429,
      code: "too_many_runs",
      message: this.message,
      headers: { "retry-after": String(Math.max(1, Math.ceil(this.retryAfterMs / 1000))) },
      logged: false,
    };
  }
}

/** The longest upstream `Retry-After` the engine honours, in ms: an absurd value (a year) must not stop syncing for good. */
export const MAX_HONOURED_RETRY_AFTER_MS = 3_600_000;

/** Options of {@link SyncEngine}. */
export interface SyncEngineOptions {
  readonly store: SyncStore;
  readonly upstream: Upstream;
  readonly intervalMs: number;
  readonly concurrency: number;
  readonly replicaId: string;
  readonly logger: Logger;
  readonly metrics: SyncMetrics;
  readonly notifier: ChangeNotifier;
  /** Upstream HTTP requests made so far by this process. */
  readonly requestCount: () => number;
  /** How often a follower tries to take leadership. @default min(interval, 5 s) */
  readonly followerPollMs?: number;
  /** How often the leader confirms it still holds leadership, also during a cycle. @default min(interval, 1 s) */
  readonly leaderCheckMs?: number;
  /** First delay after a failed cycle; doubled per further failure, capped at the interval. @default min(interval, 5 s) */
  readonly initialBackoffMs?: number;
  /** The cycle's deadline and limits, from the configuration. @default none: no deadline, default limits */
  readonly cycle?: CycleSettings;
  /** The mass-closure guard's settings. @default none: every absent survey closes at once */
  readonly closureGuard?: ClosureGuardSettings;
  /** Shortest time between the starts of two manual cycles (`SYNC_MANUAL_RUN_SPACING`), in ms. @default 5000 */
  readonly manualRunSpacingMs?: number;
}

/** What `/v1/sync/status` shows of the engine. */
export interface EngineStatus {
  readonly replicaId: string;
  readonly leader: boolean;
  readonly running: boolean;
  readonly consecutiveFailures: number;
  readonly nextRunAt: string | null;
  readonly lastCycle: CycleResult | undefined;
  readonly collectionsRefreshedAt: string | null;
  /** Closures the mass-closure guard holds (on the leader; a follower holds none). */
  readonly closures: HeldClosures | null;
}

/**
 * Runs the cycles: takes (and keeps checking) leadership through {@link ReplicaRole}, refreshes
 * the reference collections at start and daily, runs one cycle per interval while it leads,
 * backs off after failures (keeping the last good data in the store), and serialises manual runs
 * with scheduled ones. One engine per process.
 */
export class SyncEngine {
  readonly #options: SyncEngineOptions;
  readonly #index = new SurveyIndex();
  readonly #guard: ClosureGuard | undefined;
  readonly #role: ReplicaRole;
  #schedule: Promise<void> | undefined;
  #stopping = false;
  #cycleAbort: AbortController | undefined;
  /** The schedule's wait for its next cycle: a manual run, a change of role and stop() end it early. */
  #nap: Nap | undefined;
  #manualWaiters: { resolve: (result: CycleResult) => void; reject: (error: unknown) => void }[] = [];
  /** The manual cycle asked for and not started yet: every caller until it starts shares it. */
  #queued: Promise<CycleResult> | undefined;
  /** The cycle running now: a manual run asked for meanwhile joins it. */
  #current: Promise<CycleResult> | undefined;
  #lastManualStart = Number.NEGATIVE_INFINITY;
  /** Epoch ms before which no cycle starts: the upstream's last 429 `Retry-After`. */
  #notBefore = 0;
  /** Epoch ms at which the next scheduled cycle is due while leading. */
  #nextCycleAt = 0;
  #running = false;
  #consecutiveFailures = 0;
  #nextRunAt: Date | null = null;
  #lastCycle: CycleResult | undefined;
  #collectionsRefreshedAt: Date | undefined;
  #firstCycle = true;
  /** Whether the store is known to hold a successful run: a failed cycle's log line says whether data is served. */
  #synced = false;
  /** Whether the last cycle failed because the upstream refused the API key: the collections would be refused too. */
  #keyRefused = false;
  readonly #cycleListeners = new Set<(result: CycleResult) => void>();

  constructor(options: SyncEngineOptions) {
    this.#options = options;
    this.#guard = options.closureGuard ? new ClosureGuard(options.closureGuard) : undefined;
    const { intervalMs, store } = options;
    this.#role = new ReplicaRole({
      leadership: store.leadership,
      gauge: options.metrics.leader,
      logger: options.logger,
      replicaId: options.replicaId,
      leaderCheckMs: options.leaderCheckMs ?? Math.min(intervalMs, 1000),
      followerPollMs: options.followerPollMs ?? Math.min(intervalMs, 5000),
      lastCycleBy: async () => (await store.listRuns(1))[0]?.replicaId,
      onChange: () => this.#nap?.wake(),
    });
  }

  /**
   * An operator confirms the closures the mass-closure guard holds: they are applied by the next
   * cycle if those surveys are still absent. Resolves how many were confirmed.
   *
   * @throws NotLeaderError on a replica that does not lead (only the leader holds closures).
   */
  confirmClosures(): number {
    if (!this.#role.leads) throw new NotLeaderError("this replica does not lead; confirm on the leader");
    return this.#guard?.confirm() ?? 0;
  }

  /** Starts the schedule; the first cycle runs at once when this replica leads. */
  start(): void {
    this.#schedule ??= this.#run().catch((error: unknown) => {
      this.#options.logger.fatal({ err: error }, "the sync schedule stopped unexpectedly");
    });
  }

  /**
   * Stops taking work, aborts a running cycle (nothing of it is committed), waits for the
   * schedule to end, then reports 0 on `sds_sync_leader` and gives leadership up.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#cycleAbort?.abort(new ShuttingDownError("shutting down"));
    this.#nap?.wake();
    for (const waiter of this.#manualWaiters.splice(0)) waiter.reject(new ShuttingDownError("shutting down"));
    await this.#schedule;
    await this.#role.stop();
  }

  /**
   * A cycle now, for `POST /v1/sync/run`, coalesced and spaced so that no number of callers can
   * hammer the upstream: a caller joins the cycle running now, or the manual cycle already asked
   * for; otherwise a manual cycle is started, at most one per `manualRunSpacingMs` and none while
   * the upstream's 429 `Retry-After` is pending. Resolves with the cycle's result.
   *
   * @throws ManualRunRefusedError (with how long to wait) when a manual cycle may not start yet.
   * @throws NotLeaderError, ShuttingDownError
   */
  runNow(): Promise<CycleResult> {
    if (this.#stopping) throw new ShuttingDownError("shutting down");
    if (!this.#role.leads) throw new NotLeaderError("this replica does not lead; the leader runs the cycles");
    if (this.#current) return this.#current;
    if (this.#queued) return this.#queued;
    const now = Date.now();
    if (this.#notBefore > now)
      throw new ManualRunRefusedError(
        "the upstream asked to wait (429 Retry-After); the next cycle runs after it",
        this.#notBefore - now,
      );
    const spacing = this.#options.manualRunSpacingMs ?? 5000;
    const since = performance.now() - this.#lastManualStart;
    if (since < spacing)
      throw new ManualRunRefusedError(
        `manual runs are spaced by at least ${spacing / 1000} s (SYNC_MANUAL_RUN_SPACING)`,
        spacing - since,
      );
    const queued = new Promise<CycleResult>((resolve, reject) => {
      this.#manualWaiters.push({ resolve, reject });
    });
    // A queued run that the engine rejects (shutdown, lost leadership) must not surface as unhandled when no caller waits.
    queued.catch(() => undefined);
    this.#queued = queued;
    this.#nap?.wake();
    return queued;
  }

  /** Resolves with the next cycle this replica completes, whatever its trigger. */
  nextCycle(): Promise<CycleResult> {
    return new Promise((resolve) => {
      const listener = (result: CycleResult) => {
        this.#cycleListeners.delete(listener);
        resolve(result);
      };
      this.#cycleListeners.add(listener);
    });
  }

  status(): EngineStatus {
    return {
      replicaId: this.#options.replicaId,
      leader: this.#role.leads,
      running: this.#running,
      consecutiveFailures: this.#consecutiveFailures,
      nextRunAt: this.#nextRunAt?.toISOString() ?? null,
      lastCycle: this.#lastCycle,
      collectionsRefreshedAt: this.#collectionsRefreshedAt?.toISOString() ?? null,
      closures: this.#guard?.status() ?? null,
    };
  }

  async #run(): Promise<void> {
    await this.#role.start();
    const { intervalMs, logger } = this.#options;
    const followerPollMs = this.#options.followerPollMs ?? Math.min(intervalMs, 5000);
    let generation = -1;
    while (!this.#stopping) {
      if (this.#role.generation !== generation) {
        generation = this.#role.generation;
        // The role changed (perhaps and back, during a cycle): another replica may have written meanwhile.
        this.#index.invalidate();
        this.#guard?.reset();
        this.#collectionsRefreshedAt = undefined;
        // A new leader runs a cycle at once, unless the upstream's Retry-After is still pending.
        this.#nextCycleAt = this.#notBefore;
      }
      if (!this.#role.leads) {
        this.#queued = undefined;
        this.#nextRunAt = null;
        for (const waiter of this.#manualWaiters.splice(0))
          waiter.reject(new NotLeaderError("this replica lost leadership"));
        await this.#sleep(followerPollMs);
        continue;
      }
      const due = this.#nextCycleAt - Date.now();
      if (due > 0 && this.#manualWaiters.length === 0) {
        this.#nextRunAt = new Date(this.#nextCycleAt);
        await this.#sleep(due);
        continue;
      }
      this.#nextRunAt = null;

      const manual = this.#manualWaiters.splice(0);
      this.#queued = undefined;
      const trigger: RunInput["trigger"] = manual.length > 0 ? "manual" : this.#firstCycle ? "startup" : "schedule";
      if (manual.length > 0) this.#lastManualStart = performance.now();
      this.#current = this.#cycle(trigger);
      const result = await this.#current;
      this.#current = undefined;
      for (const waiter of manual) waiter.resolve(result);
      if (this.#isStopping()) break;

      if (result.retryAfterMs !== null) {
        const honoured = Math.min(result.retryAfterMs, MAX_HONOURED_RETRY_AFTER_MS);
        this.#notBefore = Date.now() + honoured;
        logger.warn(
          { retryAfterMs: result.retryAfterMs, honouredMs: honoured },
          "the upstream answered 429: no cycle, manual or scheduled, starts before its Retry-After",
        );
      }
      const delay = Math.max(
        result.status === "succeeded" ? intervalMs : this.#backoff(),
        this.#notBefore - Date.now(),
      );
      this.#nextCycleAt = Date.now() + delay;
    }
  }

  /** Read through a method: the loop condition narrows the field, but `stop()` changes it while a cycle awaits. */
  #isStopping(): boolean {
    return this.#stopping;
  }

  async #cycle(trigger: RunInput["trigger"]): Promise<CycleResult> {
    const { store, upstream, logger, notifier } = this.#options;
    const abort = new AbortController();
    this.#cycleAbort = abort;
    this.#running = true;
    try {
      // After a refused key the collections would be refused too: the cycle's one line says why, not eight more.
      if (
        !this.#keyRefused &&
        (!this.#collectionsRefreshedAt || Date.now() - this.#collectionsRefreshedAt.getTime() >= COLLECTIONS_MAX_AGE_MS)
      ) {
        const refresh = await refreshCollections(store, upstream, logger, abort.signal).catch((error: unknown) => {
          logger.warn({ err: error }, "reference collections could not be saved");
          return undefined;
        });
        // Every collection failing looks like an outage: try again next cycle. Partial failure (a guessed path) waits a day.
        if (refresh && refresh.saved.length > 0) this.#collectionsRefreshedAt = new Date();
      }
      const result = await runCycle(
        {
          store,
          upstream,
          concurrency: this.#options.concurrency,
          replicaId: this.#options.replicaId,
          logger,
          requestCount: this.#options.requestCount,
          ...this.#options.cycle,
          ...(this.#guard ? { closureGuard: this.#guard } : {}),
        },
        this.#index,
        trigger,
        abort.signal,
      );
      this.#keyRefused = isKeyRefused(result.cause);
      if (result.status === "succeeded") this.#synced = true;
      else if (result.failure !== "shutdown")
        this.#synced ||= (await store.lastSuccessfulRun().catch(() => undefined)) !== undefined;
      this.#record(result);
      if (result.lastSequence !== null) notifier.publish(result.lastSequence);
      return result;
    } finally {
      this.#running = false;
      this.#cycleAbort = undefined;
      this.#firstCycle = false;
    }
  }

  #record(result: CycleResult): void {
    const { logger, metrics } = this.#options;
    this.#lastCycle = result;
    for (const listener of [...this.#cycleListeners]) listener(result);
    const seconds = (result.finishedAt.getTime() - result.startedAt.getTime()) / 1000;
    // A cycle abandoned for a shutdown is no failure of the service: alerts on failed cycles must not fire on every deploy.
    const status = result.failure === "shutdown" ? "aborted" : result.status;
    metrics.cycles.inc({ status });
    metrics.cycleDuration.observe({ status }, seconds);
    const { counts } = result;
    const byType = {
      opened: counts.opened,
      updated: counts.updated,
      qualifications_changed: counts.qualificationsChanged,
      quotas_changed: counts.quotasChanged,
      closed: counts.closed,
      reopened: counts.reopened,
    };
    for (const [type, amount] of Object.entries(byType)) if (amount > 0) metrics.changes.inc({ type }, amount);
    if (counts.quarantined > 0) metrics.quarantinedItems.inc(counts.quarantined);
    for (const failure of result.fetchFailures)
      metrics.fetchFailures.inc({
        operation: failure.kind === "qualifications" ? "getSurveyQualifications" : "getSurveyQuotas",
      });
    if (result.status === "succeeded") {
      this.#consecutiveFailures = 0;
      logger.info({ runId: result.runId, durationMs: Math.round(seconds * 1000), ...counts }, "sync cycle succeeded");
    } else if (result.failure === "shutdown") {
      logger.info(
        { runId: result.runId, durationMs: Math.round(seconds * 1000) },
        "cycle aborted by shutdown; nothing of it was committed",
      );
    } else {
      this.#consecutiveFailures += 1;
      const served = this.#synced ? "the last good data is still served" : "no data has been synced yet";
      const fields = {
        runId: result.runId,
        error: result.error,
        failure: result.failure,
        consecutiveFailures: this.#consecutiveFailures,
      };
      // A refused key is the operator's to fix, not a passing outage: the line says so and names the setting.
      if (isKeyRefused(result.cause))
        logger.error(
          { ...fields, keyRefused: true },
          `sync cycle failed: ${describeUpstreamFailure(result.cause)}; ${served}`,
        );
      else logger.error(fields, `sync cycle failed; ${served}`);
    }
  }

  #backoff(): number {
    const { intervalMs } = this.#options;
    const initial = this.#options.initialBackoffMs ?? Math.min(intervalMs, 5000);
    const exponential = initial * 2 ** Math.max(0, this.#consecutiveFailures - 1);
    // Jitter spreads the retries of many replicas or services hitting the same outage.
    return Math.min(intervalMs, exponential * (0.8 + Math.random() * 0.4));
  }

  /** Waits `ms`, or less when a manual run, a change of role or stop() wakes the schedule. */
  #sleep(ms: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    const nap = startNap(ms);
    this.#nap = nap;
    return nap.done.finally(() => {
      if (this.#nap === nap) this.#nap = undefined;
    });
  }
}
