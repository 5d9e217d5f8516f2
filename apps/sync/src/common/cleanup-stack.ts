/**
 * The shape of `AsyncDisposableStack` (TC39 explicit resource management), for code that opens
 * several things in turn: each opened thing registers how it is closed, and one call closes them
 * all in reverse order. It replaces nested `try`/`catch` clean-up chains: a start that fails
 * half-way disposes of what it opened so far, and a stop disposes of everything, in one place.
 *
 * Every clean-up runs even when an earlier one fails; the failures are thrown afterwards (one as
 * itself, several as an `AggregateError`).
 *
 * @example
 * ```ts
 * const cleanup = new CleanupStack();
 * try {
 *   const store = cleanup.use(await openStore(), (store) => store.close());
 *   const server = cleanup.use(await startServer(), (server) => server.close());
 * } catch (error) {
 *   await cleanup.disposeAsync();
 *   throw error;
 * }
 * ```
 */
export class CleanupStack {
  readonly #cleanups: (() => unknown)[] = [];
  #disposed: Promise<void> | undefined;

  /** Registers `cleanup` to run at disposal (after those registered later). */
  defer(cleanup: () => unknown): void {
    if (this.#disposed !== undefined) throw new Error("the clean-up stack was already disposed of");
    this.#cleanups.push(cleanup);
  }

  /** Registers how `value` is closed, and returns it. */
  use<T>(value: T, close: (value: T) => unknown): T {
    this.defer(() => close(value));
    return value;
  }

  /** Runs every clean-up, last registered first, once; later calls wait for the same disposal. */
  disposeAsync(): Promise<void> {
    this.#disposed ??= (async () => {
      const errors: unknown[] = [];
      for (const cleanup of this.#cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length === 1) throw errors[0];
      if (errors.length > 1) throw new AggregateError(errors, "several clean-ups failed");
    })();
    return this.#disposed;
  }
}
