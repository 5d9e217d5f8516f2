import type { Logger } from "pino";
import type { Gauge } from "prom-client";
import type { Leadership } from "../inventory-store/store.ts";
import { startNap, type Nap } from "./nap.ts";

/** Options of {@link ReplicaRole}. */
export interface ReplicaRoleOptions {
  readonly leadership: Leadership;
  /** `sds_sync_leader`: set here and nowhere else, in the same step that changes the role. */
  readonly gauge: Gauge;
  readonly logger: Logger;
  readonly replicaId: string;
  /** How often the leader confirms it still holds leadership, in ms. */
  readonly leaderCheckMs: number;
  /** How often a follower tries to take leadership, in ms. */
  readonly followerPollMs: number;
  /** The replica that ran the last recorded cycle, if known: named in a follower's log line. */
  readonly lastCycleBy: () => Promise<string | undefined>;
  /** Called after every change of role. */
  readonly onChange: () => void;
}

/** How often the leader looks at its lock connection's state (no query): a connection the server ended is noticed this fast. */
const LOCK_LOOK_MS = 100;

/**
 * Whether this replica leads, kept true to what it holds: the leader confirms its lock with a
 * query every `leaderCheckMs` (also while a cycle runs and between cycles, however long the
 * interval) and looks at its lock connection every 100 ms (a session the server terminated or a
 * connection that broke is noticed then); a follower tries to take the lock every
 * `followerPollMs`. Each change sets `sds_sync_leader` and logs one line in the same step, so the
 * gauge, the log and what the engine does never disagree: a replica that lost its lock reports 0
 * from the check that noticed, and two replicas report 1 at once for at most one
 * `leaderCheckMs` (the old leader's blind spot when its connection looks alive; its commits are
 * fenced meanwhile, see postgres-cycle-transaction.ts).
 */
export class ReplicaRole {
  readonly #options: ReplicaRoleOptions;
  #leads = false;
  #known = false;
  #generation = 0;
  #stopping = false;
  #nap: Nap | undefined;
  #watching: Promise<void> | undefined;

  constructor(options: ReplicaRoleOptions) {
    this.#options = options;
  }

  /** Whether this replica leads, as of the last check. */
  get leads(): boolean {
    return this.#leads;
  }

  /** Counts the changes of role: a holder that sees it move knows another replica may have written meanwhile. */
  get generation(): number {
    return this.#generation;
  }

  /** Checks the role once (taking leadership when it is free) and logs it, then keeps checking in the background. */
  async start(): Promise<void> {
    await this.#check();
    this.#watching ??= this.#watch();
  }

  /** Stops checking, reports 0 and only then gives the lock up, so that no other replica leads while this one still says it does. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#nap?.wake();
    await this.#watching;
    if (this.#leads) this.#set(false, "this replica no longer leads: it is stopping");
    await this.#options.leadership.release();
  }

  async #watch(): Promise<void> {
    let checkedAt = performance.now();
    while (!this.#isStopping()) {
      const { leaderCheckMs, followerPollMs, leadership } = this.#options;
      this.#nap = startNap(this.#leads ? Math.min(LOCK_LOOK_MS, leaderCheckMs) : followerPollMs);
      await this.#nap.done;
      if (this.#isStopping()) break;
      // A leader whose lock connection still looks alive asks the server only every leaderCheckMs.
      if (this.#leads && leadership.isLeader && performance.now() - checkedAt < leaderCheckMs) continue;
      checkedAt = performance.now();
      try {
        await this.#check();
      } catch (error) {
        // acquire() answers false for a dead connection; anything else is a defect, not a reason to stop checking.
        this.#options.logger.error({ err: error }, "the leadership check failed");
      }
    }
  }

  /** Read through a method: the loop condition narrows the field, but `stop()` changes it while a check awaits. */
  #isStopping(): boolean {
    return this.#stopping;
  }

  async #check(): Promise<void> {
    const leads = await this.#options.leadership.acquire();
    // stop() decides the final role; a check that ends during it must not undo that.
    if (this.#isStopping() || (this.#known && leads === this.#leads)) return;
    if (leads) {
      this.#set(true, "this replica leads: it runs the sync cycles");
      return;
    }
    this.#set(false);
    const lastCycleBy = await this.#options.lastCycleBy().catch(() => undefined);
    const by = lastCycleBy !== undefined && lastCycleBy !== this.#options.replicaId ? lastCycleBy : undefined;
    this.#options.logger.info(
      { replicaId: this.#options.replicaId, role: "follower", ...(by === undefined ? {} : { lastCycleBy: by }) },
      `this replica follows; another replica leads${by === undefined ? "" : ` (the last cycle was run by ${by})`}`,
    );
  }

  /** Changes the role and the gauge together; logs `message` when given (a follower's line is logged by the caller, once it knows more). */
  #set(leads: boolean, message?: string): void {
    this.#leads = leads;
    this.#known = true;
    this.#generation += 1;
    this.#options.gauge.set(leads ? 1 : 0);
    if (message !== undefined)
      this.#options.logger.info({ replicaId: this.#options.replicaId, role: leads ? "leader" : "follower" }, message);
    this.#options.onChange();
  }
}
