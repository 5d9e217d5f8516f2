import type { StoredSurveyState } from "../inventory-store/store.ts";
import { DigestColumn, TimestampColumn } from "./compact-columns.ts";

const FLAG_CLOSED = 1;
const FLAG_NEEDS_REFETCH = 2;
/** The qualifications were fetched at the survey's own `Qual_LastUpdatedOnUTC` (marker equals it). */
const FLAG_QUALIFICATIONS_CURRENT = 4;
/** The quotas were fetched at the survey's own `Quota_LastUpdatedOnUTC`. */
const FLAG_QUOTAS_CURRENT = 8;
/** No quotas are stored and none were ever fetched (count 0, no marker). */
const FLAG_NO_QUOTAS = 16;
/** No qualifications are stored: only a fetch stores them, and it sets the marker. */
const FLAG_NO_QUALIFICATIONS = 32;

/**
 * The stored survey states, one slot per survey id in typed columns: about 100 bytes a survey
 * instead of an object and six strings (about 360), which a 100,000-survey inventory keeps
 * between cycles. `get` builds the same `StoredSurveyState` that was `set`, field for field.
 */
export class SurveyStates {
  readonly #slots = new Map<number, number>();
  #flags = new Uint8Array(0);
  #quotaCounts = new Float64Array(0);
  readonly #rawHashes = new DigestColumn();
  readonly #recordHashes = new DigestColumn();
  readonly #qualUpdated = new TimestampColumn();
  readonly #quotaUpdated = new TimestampColumn();
  readonly #qualificationsMarkers = new TimestampColumn();
  readonly #quotasMarkers = new TimestampColumn();

  static from(states: Iterable<StoredSurveyState>): SurveyStates {
    const table = new SurveyStates();
    for (const state of states) table.set(state);
    return table;
  }

  get size(): number {
    return this.#slots.size;
  }

  get(id: number): StoredSurveyState | undefined {
    const slot = this.#slots.get(id);
    if (slot === undefined) return undefined;
    const flags = this.#flags[slot] ?? 0;
    return {
      id,
      status: flags & FLAG_CLOSED ? "closed" : "live",
      rawHash: this.#rawHashes.get(slot),
      recordHash: this.#recordHashes.get(slot),
      qualUpdated: this.#qualUpdated.get(slot) ?? "",
      quotaUpdated: this.#quotaUpdated.get(slot) ?? "",
      qualificationsMarker: this.#qualificationsMarkers.get(slot),
      quotasMarker: this.#quotasMarkers.get(slot),
      needsRefetch: (flags & FLAG_NEEDS_REFETCH) !== 0,
      quotaCount: this.#quotaCounts[slot] ?? 0,
    };
  }

  /**
   * Whether a live-list entry needs nothing this cycle, decided without building its state (the
   * no-change cycle asks this of every survey): the survey is stored as live, its JSON hashes to
   * the stored `rawHash` (so its two child timestamps are the stored ones), and its children were
   * fetched at those timestamps (or, without `Has_Qualifications` / `Has_Quotas`, none are
   * stored). The same answer as `planSurvey(survey, get(id))` being undefined.
   */
  isCurrent(id: number, rawHash: string, hasQualifications: boolean, hasQuotas: boolean): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    const flags = this.#flags[slot] ?? 0;
    const children =
      (hasQualifications ? FLAG_QUALIFICATIONS_CURRENT : FLAG_NO_QUALIFICATIONS) |
      (hasQuotas ? FLAG_QUOTAS_CURRENT : FLAG_NO_QUOTAS);
    return (flags & FLAG_CLOSED) === 0 && (flags & children) === children && this.#rawHashes.equals(slot, rawHash);
  }

  /** Adds or replaces the state of `state.id`. */
  set(state: StoredSurveyState): void {
    const slot = this.#slotOf(state.id);
    this.#setFlags(slot, state);
    this.#quotaCounts[slot] = state.quotaCount;
    this.#rawHashes.set(slot, state.rawHash);
    this.#recordHashes.set(slot, state.recordHash);
    this.#qualUpdated.set(slot, state.qualUpdated);
    this.#quotaUpdated.set(slot, state.quotaUpdated);
    this.#qualificationsMarkers.set(slot, state.qualificationsMarker);
    this.#quotasMarkers.set(slot, state.quotasMarker);
  }

  /** Marks a stored survey closed, every other field as it was; an unknown id is ignored. */
  close(id: number): void {
    const slot = this.#slots.get(id);
    if (slot !== undefined) this.#flags[slot] = (this.#flags[slot] ?? 0) | FLAG_CLOSED;
  }

  /** Every state, in the order its id was first set (each built afresh, as `get` builds it). */
  *values(): IterableIterator<StoredSurveyState> {
    for (const id of this.#slots.keys()) {
      const state = this.get(id);
      if (state) yield state;
    }
  }

  /** Ids of the surveys stored as live, in the order they were first set. */
  *liveIds(): IterableIterator<number> {
    for (const [id, slot] of this.#slots) if (((this.#flags[slot] ?? 0) & FLAG_CLOSED) === 0) yield id;
  }

  liveCount(): number {
    let live = 0;
    for (const slot of this.#slots.values()) if (((this.#flags[slot] ?? 0) & FLAG_CLOSED) === 0) live += 1;
    return live;
  }

  #setFlags(slot: number, state: StoredSurveyState): void {
    this.#flags[slot] =
      (state.status === "closed" ? FLAG_CLOSED : 0) |
      (state.needsRefetch ? FLAG_NEEDS_REFETCH : 0) |
      (state.qualificationsMarker === state.qualUpdated ? FLAG_QUALIFICATIONS_CURRENT : 0) |
      (state.quotasMarker === state.quotaUpdated ? FLAG_QUOTAS_CURRENT : 0) |
      (state.quotaCount === 0 && state.quotasMarker === null ? FLAG_NO_QUOTAS : 0) |
      (state.qualificationsMarker === null ? FLAG_NO_QUALIFICATIONS : 0);
  }

  #slotOf(id: number): number {
    const known = this.#slots.get(id);
    if (known !== undefined) return known;
    const slot = this.#slots.size;
    this.#slots.set(id, slot);
    if (slot >= this.#flags.length) {
      const length = Math.max(1024, this.#flags.length * 2);
      this.#flags = copied(this.#flags, new Uint8Array(length));
      this.#quotaCounts = copied(this.#quotaCounts, new Float64Array(length));
    }
    return slot;
  }
}

function copied<T extends Uint8Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
