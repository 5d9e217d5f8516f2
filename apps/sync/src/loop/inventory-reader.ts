import type { SyncStore } from "../inventory-store/store.ts";

/**
 * What the respondent loop reads of the inventory: the eight store reads the matcher follows
 * the store with, the StudyTypes collection (which study types are re-contact studies), and
 * nothing that writes. The loop depends on this, not on the whole store, so
 * that it could move into a service of its own by giving it another reader.
 */
export type InventoryReader = Pick<
  SyncStore,
  | "surveyRecords"
  | "latestSequence"
  | "lastSuccessfulRun"
  | "listSurveys"
  | "getSurveys"
  | "feedHorizon"
  | "listChanges"
  | "refetchPendingIds"
  | "getCollection"
>;

/** What the loop hears of the sync cycles: when one ends (the matcher and the account are then refreshed). */
export interface CycleEvents {
  /** Resolves when the next cycle of this replica ends (any outcome). */
  nextCycle(): Promise<unknown>;
}
