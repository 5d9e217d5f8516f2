import { StoreError, SyncError } from "../common/errors.ts";

/*
 * Driver errors are classified once, here, where the store meets them: whatever a store method
 * throws that is not already one of ours becomes a StoreError (503 to an HTTP client, "store" to
 * a cycle) with the driver's error as its cause. Only JavaScript's own programming-error classes
 * pass through unchanged, so a bug still answers 500 instead of passing for an outage.
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
 * Wraps a store so that every method's failure, synchronous or not, goes through
 * {@link toStoreError}. Properties that are not methods (`kind`) are passed through.
 */
export function withStoreErrors<Store extends object>(store: Store): Store {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const what = `store ${String(property)}`;
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = Reflect.apply(value, target, args);
          return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(toStoreError(error, what))) : result;
        } catch (error) {
          throw toStoreError(error, what);
        }
      };
    },
  });
}
