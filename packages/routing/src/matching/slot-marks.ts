import type { Bitset, BitsetPool } from "../internal/bitset.ts";

/**
 * Values the service sets per survey id (a re-contact list, an unroutable reason, a cut-off
 * time), kept whether or not the survey is held, with a bitset of the held surveys that carry
 * one: a match tests one bit per candidate and looks the value up only where the bit is set.
 * The matcher calls {@link attach} when a survey gets a slot and {@link detach} when it leaves.
 */
export class SlotMarks<T> {
  readonly #values = new Map<number, T>();
  readonly bits: Bitset;

  constructor(pool: BitsetPool) {
    this.bits = pool.create();
  }

  get(surveyId: number): T | undefined {
    return this.#values.get(surveyId);
  }

  /** Sets (or with `undefined` clears) the value of a survey; `slot` is its slot when held. */
  set(surveyId: number, value: T | undefined, slot: number | undefined): void {
    if (value === undefined) {
      this.#values.delete(surveyId);
      if (slot !== undefined) this.bits.delete(slot);
      return;
    }
    this.#values.set(surveyId, value);
    if (slot !== undefined) this.bits.add(slot);
  }

  attach(surveyId: number, slot: number): void {
    if (this.#values.has(surveyId)) this.bits.add(slot);
  }

  detach(slot: number): void {
    this.bits.delete(slot);
  }
}
