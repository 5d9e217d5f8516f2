import type { SyncStore } from "../inventory-store/store.ts";
import { SurveyStates } from "./survey-states.ts";

/**
 * The store's survey states, kept in memory between cycles so a no-change cycle reads nothing
 * from the store. Only the leader writes, so its copy stays true while it leads; it is dropped
 * when leadership changes hands or a commit fails, and reloaded on the next cycle.
 */
export class SurveyIndex {
  #states: SurveyStates | undefined;
  /** Ids the last committed list repeated: the next cycle sets their copies aside from the start (see `ListingTally`). */
  repeatedIds: ReadonlySet<number> = new Set();

  async load(store: SyncStore): Promise<SurveyStates> {
    if (!this.#states) this.#states = SurveyStates.from(await store.loadSurveyStates());
    return this.#states;
  }

  invalidate(): void {
    this.#states = undefined;
  }
}
