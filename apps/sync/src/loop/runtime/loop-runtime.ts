import type { Logger } from "pino";
import type { Clock } from "./clock.ts";

/** One piece of the loop's background work. */
export interface RuntimeTask {
  /** Names the task in logs, such as `routing-facts-reload`. */
  readonly name: string;
  /**
   * When the task is next due: every so many milliseconds of the runtime's clock (the first run
   * one interval after the start), or when an event happens (a cycle's end: a function that
   * resolves on it; the runtime stops waiting for it once it stops).
   */
  readonly due: number | ((signal: AbortSignal) => Promise<void>);
  /** The work; `signal` aborts when the runtime stops (a run under way is awaited, not abandoned). */
  run(signal: AbortSignal): Promise<void>;
  /** What the warning says when a run fails (the task is tried again when next due). */
  readonly failure: string;
}

/** Options of {@link LoopRuntime}. */
export interface LoopRuntimeOptions {
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The loop's background work as named tasks, started and stopped in one place. Each task runs
 * when due, one run at a time (a slow run delays its next, never overlaps it); a failed run is a
 * warning and the task goes on. {@link stop} ends every wait at once and resolves once the runs
 * under way have ended: nothing runs against a store that is being closed.
 *
 * @example
 * ```ts
 * const runtime = new LoopRuntime({ clock: systemClock, logger });
 * runtime.add({ name: "pruning", due: 600_000, run: () => store.prune(), failure: "pruning failed" });
 * runtime.start();
 * await runtime.stop();
 * ```
 */
export class LoopRuntime {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tasks = new Map<string, RuntimeTask>();
  readonly #abort = new AbortController();
  readonly #running = new Map<string, Promise<void>>();
  #loops: Promise<void>[] = [];
  #started = false;

  constructor(options: LoopRuntimeOptions) {
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  /** The runtime's clock: what its tasks read the time from. */
  get clock(): Clock {
    return this.#clock;
  }

  /** Aborts when the runtime stops. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Adds a task; it runs once the runtime {@link start}s. */
  add(task: RuntimeTask): void {
    if (this.#tasks.has(task.name)) throw new Error(`a task named ${task.name} already exists`);
    this.#tasks.set(task.name, task);
    if (this.#started) this.#loops.push(this.#follow(task));
  }

  /** Starts waiting for each task to be due. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#loops = [...this.#tasks.values()].map((task) => this.#follow(task));
  }

  /**
   * Runs a task now, outside its schedule (a start-up's first read); joins a run under way
   * instead of starting a second one. Failures are logged as for a scheduled run.
   */
  runNow(name: string): Promise<void> {
    const task = this.#tasks.get(name);
    if (task === undefined) throw new Error(`no task named ${name}`);
    return this.#runOnce(task);
  }

  /** Ends every wait, then resolves once the runs under way have ended. Safe to call twice. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#loops);
    await Promise.all(this.#running.values());
  }

  async #follow(task: RuntimeTask): Promise<void> {
    const signal = this.#abort.signal;
    while (!this.#isStopping()) {
      if (typeof task.due === "number") await this.#clock.sleep(task.due, signal);
      else await Promise.race([task.due(signal), aborted(signal)]);
      if (this.#isStopping()) return;
      await this.#runOnce(task);
    }
  }

  /** Read through a method: a wait between two reads may have stopped the runtime. */
  #isStopping(): boolean {
    return this.#abort.signal.aborted;
  }

  #runOnce(task: RuntimeTask): Promise<void> {
    const under = this.#running.get(task.name);
    if (under !== undefined) return under;
    const signal = this.#abort.signal;
    const run = (async () => {
      try {
        await task.run(signal);
      } catch (error) {
        // A run a stop cut short fails for that reason: not worth a warning.
        if (!signal.aborted) this.#logger.warn({ err: error, task: task.name }, task.failure);
      } finally {
        this.#running.delete(task.name);
      }
    })();
    this.#running.set(task.name, run);
    return run;
  }
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else
      signal.addEventListener(
        "abort",
        () => {
          resolve();
        },
        { once: true },
      );
  });
}
