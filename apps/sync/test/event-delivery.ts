import { expect } from "vitest";

/**
 * What "exactly once after de-duplication, in sequence order" means for a consumer: the ids it
 * received (`outcome-<n>`), with repeats dropped as a consumer drops them (by id), are every
 * expected sequence once, in ascending order. Returns how many repeats were dropped.
 */
export function expectExactlyOnceInOrder(
  received: readonly (string | undefined)[],
  expected: readonly number[],
  kind: "outcome" | "change",
): number {
  const seen = new Set<string>();
  const firstArrivals: number[] = [];
  for (const id of received) {
    if (id === undefined || !id.startsWith(`${kind}-`) || seen.has(id)) continue;
    seen.add(id);
    firstArrivals.push(Number(id.slice(kind.length + 1)));
  }
  const wanted = [...expected].sort((a, b) => a - b);
  const missing = wanted.filter((sequence) => !seen.has(`${kind}-${sequence}`));
  expect(missing.slice(0, 10), `${missing.length} ${kind}s never arrived`).toEqual([]);
  const extra = firstArrivals.filter((sequence) => !wanted.includes(sequence));
  expect(extra.slice(0, 10), `${extra.length} ${kind}s arrived that were never recorded`).toEqual([]);
  const outOfOrder = firstArrivals.findIndex(
    (sequence, index) => index > 0 && sequence < (firstArrivals[index - 1] ?? 0),
  );
  expect(outOfOrder, `${kind}s out of order at arrival ${outOfOrder}`).toBe(-1);
  return received.filter((id) => id?.startsWith(`${kind}-`)).length - seen.size;
}

/**
 * Sends S2S outcome calls (`complete`, fresh tokens) with `concurrency` at once, each worker
 * pausing `pauseMs` between calls, until `stop` aborts; every call is retried until acknowledged.
 * Resolves with how many were acknowledged.
 */
export async function sendOutcomesUntil(
  url: () => string,
  stop: AbortSignal,
  options: { readonly concurrency: number; readonly pauseMs: number; readonly tokenPrefix: string },
): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (!stop.aborted) {
        const token = `${options.tokenPrefix}-${next++}`;
        for (;;) {
          const response = await fetch(`${url()}/v1/outcomes/complete?vq_token=${token}`).catch(() => undefined);
          await response?.body?.cancel();
          if (response?.status === 200) break;
        }
        await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      }
    }),
  );
  return next;
}

/** Sends `count` S2S outcome calls (`complete`, fresh tokens) with `concurrency` at once, each acknowledged with 200; keeps going over failures until each is acknowledged. */
export async function floodOutcomes(
  urls: () => string,
  count: number,
  concurrency: number,
  tokenPrefix: string,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const token = `${tokenPrefix}-${next++}`;
        for (;;) {
          const response = await fetch(`${urls()}/v1/outcomes/complete?vq_token=${token}`).catch(() => undefined);
          if (response?.status === 200) break;
          await response?.body?.cancel();
        }
      }
    }),
  );
}
