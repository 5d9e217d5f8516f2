/**
 * The mass-closure guard (rsync's `--max-delete`, as a share): one empty or cut-down list must
 * not close the inventory. A cycle whose closures exceed `maxShare` of the live surveys holds
 * them: those surveys stay live (the last good data is served) until they have been absent for
 * `confirmCycles` consecutive committed cycles, or an operator confirms.
 */
export interface ClosureGuardSettings {
  /** `SYNC_MAX_CLOSURE_SHARE`: the share (0 to 1) of live surveys a cycle may close at once; 1 turns the guard off. */
  readonly maxShare: number;
  /** `SYNC_CLOSURE_CONFIRM_CYCLES`: consecutive cycles a held survey must stay absent before it is closed. */
  readonly confirmCycles: number;
}

/** What the guard decided for one cycle: close these now, hold those. */
export interface ClosureDecision {
  /** Surveys to close in this cycle, in id order. */
  readonly close: readonly number[];
  /** Surveys absent but held (still served as live), in id order. */
  readonly held: readonly number[];
  /** The guard's state once the cycle commits (a failed cycle leaves it as it was). */
  readonly next: ReadonlyMap<number, number>;
}

/** What `/v1/sync/status` shows of the guard. */
export interface HeldClosures {
  /** Surveys held right now. */
  readonly count: number;
  /** Up to 20 of their ids. */
  readonly sample: readonly number[];
  /** Most consecutive cycles any of them has been absent. */
  readonly absentCycles: number;
  readonly confirmCycles: number;
  readonly maxShare: number;
  /** Held surveys an operator confirmed: closed at the next cycle if still absent. */
  readonly confirmed: number;
}

/** Remembers, across the cycles of one leader, which surveys are held and for how many cycles. */
export class ClosureGuard {
  readonly settings: ClosureGuardSettings;
  /** Held survey id → consecutive committed cycles it has been absent. */
  #held: ReadonlyMap<number, number> = new Map();
  #confirmed = new Set<number>();

  constructor(settings: ClosureGuardSettings) {
    this.settings = settings;
  }

  /**
   * Decides the closures of a cycle whose complete list left `missing` of `live` stored live
   * surveys absent. Below the share, every one closes (and nothing stays held). Above it, each is
   * held until absent `confirmCycles` times in a row; ids an operator confirmed close at once.
   */
  decide(missing: readonly number[], live: number): ClosureDecision {
    const { maxShare, confirmCycles } = this.settings;
    if (missing.length === 0 || missing.length <= maxShare * live) return { close: missing, held: [], next: new Map() };
    const close: number[] = [];
    const held: number[] = [];
    const next = new Map<number, number>();
    for (const id of missing) {
      const absent = (this.#held.get(id) ?? 0) + 1;
      if (absent >= confirmCycles || this.#confirmed.has(id)) close.push(id);
      else {
        held.push(id);
        next.set(id, absent);
      }
    }
    return { close, held, next };
  }

  /** Takes the decision of a committed cycle as the new state. */
  accept(decision: ClosureDecision): void {
    this.#held = decision.next;
    for (const id of [...this.#confirmed]) if (!decision.next.has(id)) this.#confirmed.delete(id);
  }

  /** An operator confirms the held closures: they apply at the next cycle if those surveys are still absent. Returns how many. */
  confirm(): number {
    for (const id of this.#held.keys()) this.#confirmed.add(id);
    return this.#held.size;
  }

  /** Forgets everything (leadership changed hands: another replica's cycles are not this one's observations). */
  reset(): void {
    this.#held = new Map();
    this.#confirmed.clear();
  }

  status(): HeldClosures {
    const ids = [...this.#held.keys()].sort((a, b) => a - b);
    return {
      count: ids.length,
      sample: ids.slice(0, 20),
      absentCycles: Math.max(0, ...this.#held.values()),
      confirmCycles: this.settings.confirmCycles,
      maxShare: this.settings.maxShare,
      confirmed: [...this.#confirmed].filter((id) => this.#held.has(id)).length,
    };
  }
}
