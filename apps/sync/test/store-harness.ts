import { afterEach, beforeEach } from "vitest";
import type { SyncStore } from "../src/inventory-store/store.ts";

/** A fresh, empty store location, opened as often as a test likes. */
export interface StoreLocation<S> {
  /** Opens (migrating) a store on this location; a second open sees the first one's data. */
  open(): Promise<S>;
  /** Removes the location (file or schema). */
  destroy(): Promise<void>;
}

/** A fresh, empty sync store location. */
export type StoreHarness = StoreLocation<SyncStore>;

/**
 * Gives each test of the enclosing `describe` a fresh location from `createHarness` and closes
 * every store the test opened before destroying the location. Returns `open`; `prepare` runs on
 * each store it opens (a sync store acquires leadership there). Register it before any
 * `beforeEach` that opens a store: hooks run in the order they are registered.
 */
export function storesPerTest<S extends { close(): Promise<void> }>(
  createHarness: () => Promise<StoreLocation<S>>,
  prepare: (store: S) => Promise<unknown> = () => Promise.resolve(),
): () => Promise<S> {
  let harness: StoreLocation<S>;
  const opened: S[] = [];
  beforeEach(async () => {
    harness = await createHarness();
  });
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
    await harness.destroy();
  });
  return async () => {
    const next = await harness.open();
    opened.push(next);
    await prepare(next);
    return next;
  };
}
