import type { StopSignals } from "./stop-signals.ts";

/*
 * A seam for the tests of signals during start, not a setting (it is not in the configuration
 * table, nor in --help): with SDS_SYNC_TEST_PAUSE_AT=<point>, the process writes one line to
 * stdout when it reaches that point of its start and waits there until a stop signal arrives, so
 * that a test can signal it inside a window it would otherwise hit only by luck.
 */

/** The environment variable naming the point to pause at. */
export const TEST_PAUSE_VARIABLE = "SDS_SYNC_TEST_PAUSE_AT";

/**
 * Where start can pause: `entry` (the entry module of the image that runs the service, just after it catches the stop signals),
 * `service-import` (the image that runs the service, before it loads the service's modules),
 * `store-open` (inside start, the store open and migrated, before the matcher loads).
 */
export type TestPausePoint = "entry" | "service-import" | "store-open";

/** The line written on pausing, which tests wait for. */
export function testPauseLine(point: TestPausePoint): string {
  return `sds-sync test hook: paused at ${point}`;
}

/**
 * Resolves at once unless the environment asks to pause at `point`; then announces the pause and
 * resolves when the first stop signal has arrived.
 */
export async function pauseForTest(point: TestPausePoint, stopSignals: StopSignals): Promise<void> {
  if (process.env[TEST_PAUSE_VARIABLE] !== point) return;
  process.stdout.write(`${testPauseLine(point)}\n`);
  // Signal handlers do not keep the process alive; a timer does, until the signal.
  const keepAlive = setInterval(() => undefined, 60_000);
  await stopSignals.first;
  clearInterval(keepAlive);
}
