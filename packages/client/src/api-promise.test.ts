import { describe, expect, it } from "vitest";
import { ApiPromise, type ResponseInfo } from "./api-promise.ts";

const info: ResponseInfo = {
  status: 200,
  headers: new Headers(),
  requestId: "req-1",
  durationMs: 12,
  attempts: 1,
  operation: "listSurveys",
  method: "GET",
  url: "https://sds.example/api/v1/surveys",
};

describe("ApiPromise", () => {
  it("is a Promise that resolves to the data", async () => {
    const promise = new ApiPromise(Promise.resolve({ data: 42, response: info }));
    expect(promise).toBeInstanceOf(Promise);
    expect(await promise).toBe(42);
    expect(await promise.then((value) => value + 1)).toBe(43);
  });

  it("gives the data and the response info of the same request", async () => {
    let started = 0;
    const promise = new ApiPromise(
      (async () => {
        started++;
        await Promise.resolve();
        return { data: "surveys", response: info };
      })(),
    );
    const [data, withResponse] = await Promise.all([promise, promise.withResponse()]);
    expect(data).toBe("surveys");
    expect(withResponse).toEqual({ data: "surveys", response: info });
    expect(started).toBe(1);
  });

  it("rejects through then, catch and finally alike", async () => {
    const failure = new Error("boom");
    const make = () => new ApiPromise<number>(Promise.reject(failure));
    await expect(make()).rejects.toBe(failure);
    expect(await make().catch((error: unknown) => error)).toBe(failure);
    let finallyRan = false;
    await expect(
      make().finally(() => {
        finallyRan = true;
      }),
    ).rejects.toBe(failure);
    expect(finallyRan).toBe(true);
    await expect(make().withResponse()).rejects.toBe(failure);
  });
});
