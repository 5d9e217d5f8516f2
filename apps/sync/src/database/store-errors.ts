import { StoreDataError, StoreError, SyncError } from "../common/errors.ts";

/*
 * Driver errors are classified once, here, where the store meets them: whatever a store method
 * throws that is not already one of ours becomes a StoreError (503 to an HTTP client, "store" to
 * a cycle) with the driver's error as its cause; where the database refused the data itself (see
 * {@link dataErrorCode}), a StoreDataError (422: a retry would fail the same way). Only JavaScript's own programming-error classes
 * pass through unchanged, so a bug still answers 500 instead of passing for an outage. The stores
 * themselves catch nothing to re-wrap it: they throw StoreErrors only for failures of their own
 * meaning (a cycle transaction already open, leadership lost before a commit).
 */

const programmingErrors = [TypeError, ReferenceError, SyntaxError, RangeError] as const;

/** SQLite's primary result codes for data it refused: SQLITE_TOOBIG, SQLITE_CONSTRAINT, SQLITE_MISMATCH. */
const sqliteDataErrors: ReadonlyMap<number, string> = new Map([
  [18, "SQLITE_TOOBIG"],
  [19, "SQLITE_CONSTRAINT"],
  [20, "SQLITE_MISMATCH"],
]);

/**
 * The driver's code when `error` says the database refused the data it was given, else
 * undefined: PostgreSQL's SQLSTATE classes 22 (data exception: an invalid value, a NUL in text)
 * and 23 (integrity constraint violation), SQLite's constraint, mismatch and too-big results
 * (node:sqlite's `errcode`, whose low byte is the primary code). Everything else (a lost
 * connection, a lock or statement timeout, a serialization failure or deadlock, a busy file) is
 * what a retry can fix, and stays a 503.
 */
export function dataErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof errcode === "number" && code === "ERR_SQLITE_ERROR") {
    const primary = sqliteDataErrors.get(errcode & 0xff);
    return primary === undefined ? undefined : `${primary} (${errcode})`;
  }
  // A SQLSTATE is five characters; pg's DatabaseError carries it as `code` (network errors carry ECONNREFUSED and the like).
  if (typeof code === "string" && /^2[23][0-9A-Z]{3}$/.test(code)) return `SQLSTATE ${code}`;
  return undefined;
}

/** The error a store method should surface for `error`, thrown while doing `what`. */
export function toStoreError(error: unknown, what: string): Error {
  if (error instanceof SyncError) return error;
  if (error instanceof Error && programmingErrors.some((kind) => error instanceof kind)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const dataCode = dataErrorCode(error);
  if (dataCode !== undefined) return new StoreDataError(`${what} failed: ${message}`, dataCode, { cause: error });
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
