import { describe, expect, it } from "vitest";
import { CleanupStack } from "./cleanup-stack.ts";

describe("CleanupStack", () => {
  it("closes what was opened last first, once, however often it is disposed of", async () => {
    const closed: string[] = [];
    const cleanup = new CleanupStack();
    const store = cleanup.use("store", (name) => closed.push(name));
    cleanup.defer(async () => {
      await Promise.resolve();
      closed.push("server");
    });
    expect(store).toBe("store");
    await Promise.all([cleanup.disposeAsync(), cleanup.disposeAsync()]);
    await cleanup.disposeAsync();
    expect(closed).toEqual(["server", "store"]);
    expect(() => {
      cleanup.defer(() => undefined);
    }).toThrow(/already disposed/);
  });

  it("runs every clean-up when one fails, then throws the failure (several as an AggregateError)", async () => {
    const closed: string[] = [];
    const one = new CleanupStack();
    one.defer(() => closed.push("store"));
    one.defer(() => {
      throw new Error("server would not close");
    });
    await expect(one.disposeAsync()).rejects.toThrow("server would not close");
    expect(closed).toEqual(["store"]);

    const two = new CleanupStack();
    two.defer(() => Promise.reject(new Error("a")));
    two.defer(() => Promise.reject(new Error("b")));
    await expect(two.disposeAsync()).rejects.toBeInstanceOf(AggregateError);
  });
});
