import type { SyncStore } from "../src/store/store.ts";

/** A fresh, empty store location, opened as often as a test likes. */
export interface StoreHarness {
  /** Opens (migrating) a store on this location; a second open sees the first one's data. */
  open(): Promise<SyncStore>;
  /** Removes the location (file or schema). */
  destroy(): Promise<void>;
}
