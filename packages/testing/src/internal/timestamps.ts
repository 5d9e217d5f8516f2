import { formatMillis } from "./dates.ts";

/**
 * The next value of a "last updated" field: the clock's now, but always at least one
 * millisecond after every previous value, so a change is visible to a poller comparing
 * timestamps even when the test clock is frozen.
 */
export function nextTimestamp(now: number, ...previous: readonly unknown[]): string {
  let next = now;
  for (const value of previous) {
    const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
    if (!Number.isNaN(time) && time >= next) next = time + 1;
  }
  return formatMillis(next);
}
