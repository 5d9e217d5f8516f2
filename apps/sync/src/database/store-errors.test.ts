import { describe, expect, it } from "vitest";
import { StoreDataError, StoreError, SyncError } from "../common/errors.ts";
import { toStoreError, withStoreErrors } from "./store-errors.ts";

describe("toStoreError", () => {
  it("turns a driver's error into a StoreError that keeps it as the cause", () => {
    const driverError = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const error = toStoreError(driverError, "store listSurveys");
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      message: "store listSurveys failed: connect ECONNREFUSED 127.0.0.1:5432",
      cause: driverError,
    });
    expect(error instanceof StoreError ? error.http : undefined).toMatchObject({
      status: 503,
      code: "store_unavailable",
    });
  });

  it("answers data the database refused with 422 store_refused_data, and what a retry can fix with 503", () => {
    const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code, severity: "ERROR" });
    const sqliteError = (errcode: number) => Object.assign(new Error("sqlite"), { code: "ERR_SQLITE_ERROR", errcode });
    const refused = [
      pgError("22021"), // a NUL byte in text
      pgError("22P02"), // invalid text representation
      pgError("22008"), // a date out of range
      pgError("23505"), // unique violation
      pgError("23514"), // check violation
      sqliteError(19),
      sqliteError(275), // SQLITE_CONSTRAINT_CHECK
      sqliteError(1299), // SQLITE_CONSTRAINT_NOTNULL
      sqliteError(1811), // SQLITE_CONSTRAINT_TRIGGER
      sqliteError(20), // SQLITE_MISMATCH
      sqliteError(18), // SQLITE_TOOBIG
    ];
    for (const driverError of refused) {
      const error = toStoreError(driverError, "store write");
      expect(error, driverError.message).toBeInstanceOf(StoreDataError);
      expect(error).toBeInstanceOf(StoreError);
      expect(error instanceof StoreError ? error.http : undefined).toMatchObject({
        status: 422,
        code: "store_refused_data",
      });
    }
    const retryable = [
      pgError("40001"), // serialization failure
      pgError("40P01"), // deadlock detected
      pgError("55P03"), // lock not available (lock timeout)
      pgError("57014"), // statement timeout
      pgError("08006"), // connection failure
      pgError("57P01"), // admin shutdown
      pgError("53300"), // too many connections
      sqliteError(5), // SQLITE_BUSY
      sqliteError(6), // SQLITE_LOCKED
      sqliteError(10), // SQLITE_IOERR
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("read ECONNRESET 22"), { code: "22" }),
    ];
    for (const driverError of retryable) {
      const error = toStoreError(driverError, "store write");
      expect(error, driverError.message).not.toBeInstanceOf(StoreDataError);
      expect(error instanceof StoreError ? error.http : undefined).toMatchObject({ status: 503 });
    }
  });

  it("leaves our own errors and programming errors as they are", () => {
    const ours = new SyncError("ours");
    const bug = new TypeError("x is undefined");
    expect(toStoreError(ours, "store x")).toBe(ours);
    expect(toStoreError(bug, "store x")).toBe(bug);
  });
});

describe("withStoreErrors", () => {
  it("turns a synchronous throw into a rejection, classifies every failure, and passes other properties through", async () => {
    const failing = {
      kind: "sqlite",
      listSurveys: (): Promise<never> => {
        throw Object.assign(new Error("database is not open"), { code: "ERR_INVALID_STATE" });
      },
      latestSequence: (): Promise<number> =>
        Promise.reject(new Error("Cannot use a pool after calling end on the pool")),
      stats: (): Promise<number> => Promise.resolve(3),
    };
    const store = withStoreErrors(failing);
    expect(store.kind).toBe("sqlite");
    let listed: Promise<unknown> | undefined;
    expect(() => (listed = store.listSurveys())).not.toThrow();
    await expect(listed).rejects.toThrow(StoreError);
    await expect(listed).rejects.toThrow("store listSurveys failed: database is not open");
    await expect(store.latestSequence()).rejects.toThrow(/store latestSequence failed: Cannot use a pool/);
    expect(await store.stats()).toBe(3);
  });

  it("names the failing call as asked, and keeps our own errors and programming errors", async () => {
    const ours = new StoreError("the cycle transaction is already over");
    const transaction = withStoreErrors(
      {
        write: (): Promise<void> => Promise.reject(new Error('null value in column "language_id"')),
        commit: (): Promise<void> => Promise.reject(ours),
        rollback: (): Promise<void> => Promise.reject(new TypeError("x is undefined")),
      },
      () => "cycle commit",
    );
    await expect(transaction.write()).rejects.toThrow('cycle commit failed: null value in column "language_id"');
    await expect(transaction.commit()).rejects.toBe(ours);
    await expect(transaction.rollback()).rejects.toThrow(TypeError);
  });
});
