/**
 * Runs tasks with at most `limit` in flight. {@link TaskPool.run} waits for a free slot, starts
 * the task and returns without waiting for it to finish, so a producer that feeds the pool (the
 * live list, read as it streams in) is held back while every slot is busy: what waits is
 * bounded by the limit, not by the number of tasks. A pool, not batches: one slow task does not
 * idle the other slots.
 *
 * A task's rejection is kept (the first one) and rethrown by {@link TaskPool.drain}, once every
 * running task has finished, so no work outlives the pool; {@link TaskPool.failed} lets the
 * producer stop early.
 *
 * Not @sds/client's concurrency limiter (an internal, abortable FIFO semaphore shared by one
 * client's calls, with no task or failure of its own): this bounds a producer of tasks.
 */
export class TaskPool {
  readonly #limit: number;
  #active = 0;
  #waiters: (() => void)[] = [];
  #failure: { readonly error: unknown } | undefined;

  /** @param limit tasks in flight at most (at least 1). */
  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** Whether a task has rejected. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Waits for a free slot, then starts `task`. Resolves once it has started. */
  async run(task: () => Promise<void>): Promise<void> {
    while (this.#active >= this.#limit) await this.#nextFinish();
    this.#active += 1;
    void task()
      .catch((error: unknown) => {
        this.#failure ??= { error };
      })
      .finally(() => {
        this.#active -= 1;
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
      });
  }

  /** Waits until every started task has finished; rethrows the first rejection. */
  async drain(): Promise<void> {
    while (this.#active > 0) await this.#nextFinish();
    if (this.#failure) throw this.#failure.error;
  }

  #nextFinish(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
