import { describe, expect, it } from "vitest";
import { StoreError, SyncError } from "../common/errors.ts";
import { toStoreError, withStoreErrors } from "./store-errors.ts";

describe("toStoreError", () => {
  it("turns a driver's error into a StoreError that keeps it as the cause", () => {
    const driverError = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const error = toStoreError(driverError, "store listSurveys");
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ message: "store listSurveys failed: connect ECONNREFUSED 127.0.0.1:5432", cause: driverError });
    expect(error instanceof StoreError ? error.http : undefined).toMatchObject({ status: 503, code: "store_unavailable" });
  });

  it("leaves our own errors and programming errors as they are", () => {
    const ours = new SyncError("ours");
    const bug = new TypeError("x is undefined");
    expect(toStoreError(ours, "store x")).toBe(ours);
    expect(toStoreError(bug, "store x")).toBe(bug);
  });
});

describe("withStoreErrors", () => {
  it("classifies synchronous throws and rejections of every method, and passes other properties through", async () => {
    const failing = {
      kind: "sqlite",
      listSurveys: (): never => {
        throw Object.assign(new Error("database is not open"), { code: "ERR_INVALID_STATE" });
      },
      latestSequence: (): Promise<number> => Promise.reject(new Error("Cannot use a pool after calling end on the pool")),
    };
    const store = withStoreErrors(failing);
    expect(store.kind).toBe("sqlite");
    expect(() => store.listSurveys()).toThrow(StoreError);
    await expect(store.latestSequence()).rejects.toThrow(/store latestSequence failed: Cannot use a pool/);
  });
});
