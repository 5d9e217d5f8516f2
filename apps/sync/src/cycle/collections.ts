import type { Logger } from "pino";
import type { SyncStore } from "../inventory-store/store.ts";
import { errorMessage } from "./cycle-result.ts";
import { collectionNames, type Upstream } from "../upstream/upstream.ts";

/** How often the reference collections are refreshed: integrations cache them about a day. */
export const COLLECTIONS_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** What one refresh achieved. */
export interface CollectionsRefresh {
  readonly saved: readonly string[];
  readonly failed: readonly { readonly name: string; readonly error: string }[];
}

/**
 * Fetches every reference collection and saves those that answered, in one transaction. A
 * collection that fails keeps its last stored copy: several paths are guesses (see
 * observed-endpoints.md) and may not exist upstream, which must not block the others.
 */
export async function refreshCollections(
  store: SyncStore,
  upstream: Upstream,
  logger: Logger,
  signal: AbortSignal,
  now: () => Date = () => new Date(),
): Promise<CollectionsRefresh> {
  const results = await Promise.allSettled(
    collectionNames.map(async (name) => ({ name, body: await upstream.collection(name, signal) })),
  );
  const saved: { name: string; body: string }[] = [];
  const failed: { name: string; error: string }[] = [];
  results.forEach((result, index) => {
    const name = collectionNames[index] ?? "unknown";
    if (result.status === "fulfilled") saved.push({ name, body: JSON.stringify(result.value.body) });
    else failed.push({ name, error: errorMessage(result.reason) });
  });
  if (saved.length > 0) await store.saveCollections(saved, now());
  if (failed.length > 0)
    logger.warn({ failed }, "some reference collections could not be refreshed; their last copies are kept");
  else logger.info({ collections: saved.length }, "reference collections refreshed");
  return { saved: saved.map((collection) => collection.name), failed };
}
