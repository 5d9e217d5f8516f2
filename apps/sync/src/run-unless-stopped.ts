import type { StopSignals } from "./stop-signals.ts";

/*
 * The step of the entry between catching the stop signals and running the service. Imports
 * nothing at run time (main.ts loads it before it knows the Node.js version is supported).
 */

/**
 * Loads the service's modules, then runs the service unless a stop signal arrived meanwhile (or
 * before): then it says so on `writeError` and returns without starting anything.
 *
 * @example
 * ```ts
 * await runUnlessStopped(catchStopSignals(), async () => (await import("./run-service.ts")).runService, (line) =>
 *   process.stderr.write(line),
 * );
 * ```
 */
export async function runUnlessStopped(
  stopSignals: StopSignals,
  loadService: () => Promise<(stopSignals: StopSignals) => Promise<void>>,
  writeError: (line: string) => unknown,
): Promise<void> {
  const runService = await loadService();
  // Loading modules may not turn the event loop: a signal that came meanwhile is delivered now.
  await deliverCaughtSignals();
  if (stopSignals.received !== undefined) {
    writeError(`sds-sync: ${stopSignals.received} received before start: not starting\n`);
    return;
  }
  await runService(stopSignals);
}

/**
 * Signals reach JavaScript in the event loop's poll phase, which runs before setImmediate
 * callbacks: once this resolves, every signal caught so far has reached the listeners.
 */
function deliverCaughtSignals(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
