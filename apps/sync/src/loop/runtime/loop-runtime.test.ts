import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../../test/manual-clock.ts";
import { LoopRuntime } from "./loop-runtime.ts";

const silent = pino({ level: "silent" });

describe("LoopRuntime", () => {
  it("runs a task when its interval has passed on the clock, and not before", async () => {
    const clock = new ManualClock(0);
    const runtime = new LoopRuntime({ clock, logger: silent });
    const runs: number[] = [];
    runtime.add({
      name: "pruning",
      due: 600_000,
      run: () => Promise.resolve(void runs.push(clock.now())),
      failure: "",
    });
    runtime.start();
    await vi.waitFor(() => {
      expect(clock.sleeping).toBe(1);
    });
    clock.advance(599_999);
    expect(runs).toEqual([]);
    clock.advance(1);
    await vi.waitFor(() => {
      expect(runs).toEqual([600_000]);
    });
    await vi.waitFor(() => {
      expect(clock.sleeping).toBe(1);
    });
    clock.advance(600_000);
    await vi.waitFor(() => {
      expect(runs).toEqual([600_000, 1_200_000]);
    });
    await runtime.stop();
  });

  it("logs a failed run with the task's name and runs it again when next due", async () => {
    const clock = new ManualClock(0);
    const warnings: unknown[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
    const runtime = new LoopRuntime({ clock, logger });
    let calls = 0;
    runtime.add({
      name: "window-advance",
      due: 1000,
      run: () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error("store busy")) : Promise.resolve();
      },
      failure: "the windows could not be advanced",
    });
    runtime.start();
    for (const expected of [1, 2]) {
      await vi.waitFor(() => {
        expect(clock.sleeping).toBe(1);
      });
      clock.advance(1000);
      await vi.waitFor(() => {
        expect(calls).toBe(expected);
      });
    }
    expect(warnings).toEqual([
      expect.objectContaining({ task: "window-advance", msg: "the windows could not be advanced" }),
    ]);
    await runtime.stop();
  });

  it("waits, on stop, for a run under way, and starts no run afterwards", async () => {
    const clock = new ManualClock(0);
    const runtime = new LoopRuntime({ clock, logger: silent });
    let finish: () => void = () => undefined;
    const events: string[] = [];
    runtime.add({
      name: "slow",
      due: 1000,
      run: async (signal) => {
        events.push(`run (aborted: ${String(signal.aborted)})`);
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        events.push("run ended");
      },
      failure: "",
    });
    runtime.start();
    await vi.waitFor(() => {
      expect(clock.sleeping).toBe(1);
    });
    clock.advance(1000);
    await vi.waitFor(() => {
      expect(events).toEqual(["run (aborted: false)"]);
    });
    let stopped = false;
    const stopping = runtime.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(runtime.signal.aborted).toBe(true);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(events).toEqual(["run (aborted: false)", "run ended"]);
    clock.advance(10_000);
    await Promise.resolve();
    expect(events).toHaveLength(2);
  });

  it("runs an event task on each event, and a run asked for now joins one under way", async () => {
    const runtime = new LoopRuntime({ clock: new ManualClock(0), logger: silent });
    const events: (() => void)[] = [];
    let runs = 0;
    runtime.add({
      name: "cycle-follower",
      due: () =>
        new Promise<void>((resolve) => {
          events.push(resolve);
        }),
      run: () => Promise.resolve(void (runs += 1)),
      failure: "",
    });
    runtime.start();
    for (const expected of [1, 2]) {
      await vi.waitFor(() => {
        expect(events).toHaveLength(expected);
      });
      events[expected - 1]?.();
      await vi.waitFor(() => {
        expect(runs).toBe(expected);
      });
    }
    await Promise.all([runtime.runNow("cycle-follower"), runtime.runNow("cycle-follower")]);
    expect(runs).toBe(3);
    await runtime.stop();
  });
});
