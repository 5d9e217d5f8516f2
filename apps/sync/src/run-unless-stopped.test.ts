import { describe, expect, it } from "vitest";
import { runUnlessStopped } from "./run-unless-stopped.ts";
import type { StopSignals } from "./stop-signals.ts";

/** Stop signals a test delivers by hand. */
function handSignals(): StopSignals & { deliver(signal: NodeJS.Signals): void } {
  let received: NodeJS.Signals | undefined;
  let resolveFirst: (signal: NodeJS.Signals) => void = () => undefined;
  const first = new Promise<NodeJS.Signals>((resolve) => {
    resolveFirst = resolve;
  });
  return {
    get received() {
      return received;
    },
    first,
    onSignal: () => undefined,
    deliver(signal) {
      received ??= signal;
      resolveFirst(signal);
    },
  };
}

describe("runUnlessStopped (the entry, between catching the signals and running the service)", () => {
  it("does not start when the signal arrived before the service's modules were loaded", async () => {
    const signals = handSignals();
    signals.deliver("SIGTERM");
    const lines: string[] = [];
    let started = false;
    await runUnlessStopped(
      signals,
      () =>
        Promise.resolve(() => {
          started = true;
          return Promise.resolve();
        }),
      (line) => lines.push(line),
    );
    expect(started).toBe(false);
    expect(lines).toEqual(["sds-sync: SIGTERM received before start: not starting\n"]);
  });

  it("does not start when the signal arrives while the service's modules load", async () => {
    const signals = handSignals();
    const lines: string[] = [];
    let started = false;
    await runUnlessStopped(
      signals,
      async () => {
        await Promise.resolve();
        signals.deliver("SIGINT");
        return () => {
          started = true;
          return Promise.resolve();
        };
      },
      (line) => lines.push(line),
    );
    expect(started).toBe(false);
    expect(lines).toEqual(["sds-sync: SIGINT received before start: not starting\n"]);
  });

  it("runs the service when no signal came", async () => {
    const signals = handSignals();
    let startedWith: StopSignals | undefined;
    await runUnlessStopped(
      signals,
      () =>
        Promise.resolve((given: StopSignals) => {
          startedWith = given;
          return Promise.resolve();
        }),
      () => undefined,
    );
    expect(startedWith).toBe(signals);
  });
});
