import type { StoredSurveyState, SyncStore } from "../store/store.ts";

/**
 * The store's survey states, kept in memory between cycles so a no-change cycle reads nothing
 * from the store. Only the leader writes, so its copy stays true while it leads; it is dropped
 * when leadership changes hands or a commit fails, and reloaded on the next cycle.
 */
export class SurveyIndex {
  #states: Map<number, StoredSurveyState> | undefined;
  /** Ids the last committed list repeated: the next cycle sets their copies aside from the start (see `ListingTally`). */
  repeatedIds: ReadonlySet<number> = new Set();

  async load(store: SyncStore): Promise<Map<number, StoredSurveyState>> {
    if (!this.#states) this.#states = new Map((await store.loadSurveyStates()).map((state) => [state.id, state]));
    return this.#states;
  }

  invalidate(): void {
    this.#states = undefined;
  }
}
