import { StoreError, SyncError } from "../common/errors.ts";

/*
 * Driver errors are classified once, here, where the store meets them: whatever a store method
 * throws that is not already one of ours becomes a StoreError (503 to an HTTP client, "store" to
 * a cycle) with the driver's error as its cause. Only JavaScript's own programming-error classes
 * pass through unchanged, so a bug still answers 500 instead of passing for an outage. The stores
 * themselves catch nothing to re-wrap it: they throw StoreErrors only for failures of their own
 * meaning (a cycle transaction already open, leadership lost before a commit).
 */

const programmingErrors = [TypeError, ReferenceError, SyntaxError, RangeError] as const;

/** The error a store method should surface for `error`, thrown while doing `what`. */
export function toStoreError(error: unknown, what: string): Error {
  if (error instanceof SyncError) return error;
  if (error instanceof Error && programmingErrors.some((kind) => error instanceof kind)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError(`${what} failed: ${message}`, { cause: error });
}

/**
 * Wraps a store so that every method's failure goes through {@link toStoreError}; properties
 * that are not methods (`kind`, `leadership`) are passed through. Every method of a store is
 * async, so a synchronous throw (node:sqlite is synchronous) arrives as a rejection like any
 * other failure: a caller never needs a `try` around the call besides the `await`.
 *
 * Objects a method returns are not wrapped: a store that hands out an object of its own (a cycle
 * transaction) wraps it itself. `what` names the failing call in the message,
 * `store <method>` unless given.
 *
 * @example
 * ```ts
 * return withStoreErrors(new SqliteStore(db, reader));
 * ```
 */
export function withStoreErrors<Store extends object>(
  store: Store,
  what: (method: string) => string = (method) => `store ${method}`,
): Store {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const fail = (error: unknown): Promise<never> => Promise.reject(toStoreError(error, what(String(property))));
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = Reflect.apply(value, target, args);
          return result instanceof Promise ? result.catch(fail) : result;
        } catch (error) {
          return fail(error);
        }
      };
    },
  });
}
