import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpCaller, inProcessCaller, validUrlSettings, type Caller } from "../../test/http.ts";
import { API_KEY_HEADER, createFakeSupplierApi, DEFAULT_API_KEY, type FakeSupplierApi } from "../index.ts";

const transports = [
  ["over HTTP", httpCaller],
  ["in-process", (api: FakeSupplierApi) => Promise.resolve(inProcessCaller(api))],
] as const;

function isConnectionReset(error: unknown): boolean {
  return error instanceof TypeError && (error.cause as { code?: string } | undefined)?.code === "ECONNRESET";
}

describe.each(transports)("fault injection %s", (_name, connect) => {
  let api: FakeSupplierApi;
  let call: Caller;
  beforeEach(async () => {
    api = createFakeSupplierApi({ seed: 3, control: true });
    call = await connect(api);
  });
  afterEach(async () => {
    await api.close();
  });

  it("delays responses by a fixed latency", async () => {
    api.faults.add({ kind: "latency", ms: 120 });
    const started = performance.now();
    expect((await call("/surveys")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(120);
    expect(api.requestLog()[0]).toMatchObject({ injectedLatencyMs: 120, faults: ["latency"] });
    expect(api.requestLog()[0]?.durationMs).toBeGreaterThanOrEqual(120);
  });

  it("adds seeded jitter within its bound", async () => {
    api.faults.add({ kind: "latency", ms: 5, jitterMs: 40 });
    for (let index = 0; index < 8; index++) await call("/collection/languages");
    const delays = api.requestLog().map((entry) => entry.injectedLatencyMs);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(5);
      expect(delay).toBeLessThanOrEqual(45);
    }
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it.each([500, 503])("answers %i with the error envelope and leaves state alone", async (status) => {
    const before = api.getAccount(1001);
    api.faults.add({ kind: "status", status });
    const result = await call("/supplier-account/1001/redirect-url", { method: "PUT", body: validUrlSettings });
    expect(result.status).toBe(status);
    expect(result.json).toMatchObject({ hasError: true, status: "error" });
    expect((result.json.error as { errorCode: string }).errorCode).not.toBe("");
    expect(api.getAccount(1001)).toEqual(before);
  });

  it("sends Retry-After with 429 and 503, in seconds or as an HTTP date", async () => {
    api.faults.add({ kind: "status", status: 429, retryAfter: 2, count: 1 });
    const date = "Wed, 21 Oct 2026 07:28:00 GMT";
    api.faults.add({ kind: "status", status: 503, retryAfter: date, count: 1 });
    const first = await call("/surveys");
    expect([
      first.status,
      first.headers.get("retry-after"),
      (first.json.error as { errorCode: string }).errorCode,
    ]).toEqual([429, "2", "TOO_MANY_REQUESTS"]);
    const second = await call("/surveys");
    expect([second.status, second.headers.get("retry-after")]).toEqual([503, date]);
    expect((await call("/surveys")).status).toBe(200);
  });

  it("answers a status with an empty or plain-text body when asked", async () => {
    api.faults.add({ kind: "status", status: 502, body: "text", count: 1 });
    api.faults.add({ kind: "status", status: 504, body: "empty", count: 1 });
    const text = await call("/surveys");
    expect(text.status).toBe(502);
    expect(text.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(text.text).toMatch(/^502 /);
    const empty = await call("/surveys");
    expect([empty.status, empty.text]).toEqual([504, ""]);
  });

  it("answers 200 with hasError true and the given code", async () => {
    api.faults.add({ kind: "envelope-error", errorCode: "QUOTA_SERVICE_DOWN", message: "try later" });
    const result = await call("/surveys");
    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      status: "error",
      hasError: true,
      messages: ["try later"],
      error: { errorCode: "QUOTA_SERVICE_DOWN" },
    });
  });

  it("sends malformed JSON, though the update itself went through", async () => {
    api.faults.add({ kind: "malformed-json", operation: "updateRedirectUrls" });
    const result = await call("/supplier-account/1001/redirect-url", { method: "PUT", body: validUrlSettings });
    expect(result.status).toBe(200);
    expect(() => JSON.parse(result.text) as unknown).toThrow(SyntaxError);
    expect(api.getAccount(1001).RedirectUrls).toEqual(validUrlSettings);
  });

  it("sends truncated JSON with a matching length", async () => {
    const full = (await call("/surveys")).text;
    api.faults.add({ kind: "truncated-json", keep: 0.25 });
    const result = await call("/surveys");
    expect(result.status).toBe(200);
    expect(result.text).toBe(full.slice(0, Math.floor(full.length * 0.25)));
    expect(() => JSON.parse(result.text) as unknown).toThrow(SyntaxError);
  });

  it("resets the connection: fetch rejects with a TypeError caused by ECONNRESET, and nothing changes", async () => {
    const before = api.getAccount(1001);
    api.faults.add({ kind: "connection-reset", count: 1 });
    const error = await call("/supplier-account/1001/redirect-url", { method: "PUT", body: validUrlSettings }).catch(
      (caught: unknown) => caught,
    );
    expect(isConnectionReset(error)).toBe(true);
    expect(api.getAccount(1001)).toEqual(before);
    expect(api.requestLog().at(-1)).toMatchObject({ status: 0, faults: ["connection-reset"] });
    expect((await call("/surveys")).status).toBe(200);
  });

  it("fires a counted fault on the next N matching requests only, then retires it", async () => {
    const fault = api.faults.add({ kind: "status", status: 503, retryAfter: 2, operation: "listSurveys", count: 2 });
    expect(fault).toMatchObject({ id: expect.stringMatching(/^fault-/) as string, remaining: 2, fired: 0 });
    expect((await call("/supplier-account")).status).toBe(200);
    expect((await call("/surveys")).status).toBe(503);
    expect(api.faults.list()).toEqual([expect.objectContaining({ remaining: 1, fired: 1 })]);
    expect((await call("/surveys")).status).toBe(503);
    expect(api.faults.list()).toEqual([]);
    expect((await call("/surveys")).status).toBe(200);
  });

  it("targets by operation, path, method and supplier", async () => {
    api.faults.add({ kind: "status", status: 500, path: "/collection/industries" });
    api.faults.add({ kind: "status", status: 501, operation: ["getSurveyStats", "getSurveyGroups"] });
    api.faults.add({ kind: "status", status: 502, method: "put" });
    api.faults.add({ kind: "status", status: 503, supplierId: 4242 });
    expect((await call("/collection/industries")).status).toBe(500);
    expect((await call("/collection/languages")).status).toBe(200);
    expect((await call("/survey-groups/1")).status).toBe(501);
    expect(
      (await call("/supplier-account/1001/s2s-redirect-url", { method: "PUT", body: validUrlSettings })).status,
    ).toBe(502);
    expect((await call("/surveys")).status).toBe(200);
  });

  it("fires by rate from the seeded generator: about the rate, and the same requests for the same seed", async () => {
    const pattern = async (target: FakeSupplierApi, caller: Caller): Promise<number[]> => {
      target.faults.add({ kind: "status", status: 500, rate: 0.3 });
      const statuses: number[] = [];
      for (let index = 0; index < 100; index++) statuses.push((await caller("/collection/studytypes")).status);
      return statuses;
    };
    const first = await pattern(api, call);
    const failures = first.filter((status) => status === 500).length;
    expect(failures).toBeGreaterThan(10);
    expect(failures).toBeLessThan(55);
    const twin = createFakeSupplierApi({ seed: 3 });
    expect(await pattern(twin, inProcessCaller(twin))).toEqual(first);
    const other = createFakeSupplierApi({ seed: 4 });
    expect(await pattern(other, inProcessCaller(other))).not.toEqual(first);
  });

  it("never fires at rate 0, and lets the first matching non-latency fault win", async () => {
    api.faults.add({ kind: "status", status: 500, rate: 0 });
    api.faults.add({ kind: "envelope-error", count: 1 });
    api.faults.add({ kind: "status", status: 503, count: 1 });
    expect((await call("/surveys")).json.hasError).toBe(true);
    expect((await call("/surveys")).status).toBe(503);
    expect((await call("/surveys")).status).toBe(200);
  });

  it("combines latency with a status fault", async () => {
    api.faults.add({ kind: "latency", ms: 60, count: 1 });
    api.faults.add({ kind: "status", status: 503, count: 1 });
    const started = performance.now();
    expect((await call("/surveys")).status).toBe(503);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(api.requestLog()[0]?.faults).toEqual(["latency", "status"]);
  });

  it("hits unknown routes too when targeted by path, but never the control routes", async () => {
    api.faults.add({ kind: "status", status: 500 });
    expect((await call("/nope")).status).toBe(500);
    expect((await call("//__sandbox/faults")).status).toBe(200);
  });

  it("removes one fault or clears them all", async () => {
    const first = api.faults.add({ kind: "status", status: 500 });
    api.faults.add({ kind: "status", status: 503 });
    expect(api.faults.remove(first.id)).toBe(true);
    expect(api.faults.remove(first.id)).toBe(false);
    expect((await call("/surveys")).status).toBe(503);
    api.faults.clear();
    expect((await call("/surveys")).status).toBe(200);
  });

  it("refuses invalid faults with a RangeError naming the problem", () => {
    expect(() => api.faults.add({ kind: "status", status: 200 })).toThrow(/status/);
    expect(() => api.faults.add({ kind: "latency", ms: 1, rate: 2 })).toThrow(/rate/);
    expect(() => api.faults.add({ kind: "latency", ms: 1, count: 0 })).toThrow(/count/);
    expect(() => api.faults.add({ kind: "status", status: 500, operation: "listSurvey" as "listSurveys" })).toThrow(
      /operation/,
    );
    expect(() => api.faults.add({ kind: "explode" } as unknown as { kind: "connection-reset" })).toThrow(RangeError);
    expect(() =>
      api.faults.add({ kind: "connection-reset", ms: 5 } as unknown as { kind: "connection-reset" }),
    ).toThrow(RangeError);
    expect(api.faults.list()).toEqual([]);
  });

  it("is driven over /__sandbox/faults: add, list, remove, clear, and refuse a bad spec", async () => {
    const added = await call("//__sandbox/faults", {
      method: "POST",
      body: { kind: "status", status: 503, retryAfter: 1, operation: "listSurveys", count: 1 },
    });
    expect(added.status).toBe(201);
    const id = (added.json.fault as { id: string }).id;
    expect(((await call("//__sandbox/faults")).json.faults as { id: string }[]).map((fault) => fault.id)).toEqual([id]);
    expect((await call("/surveys")).status).toBe(503);
    await call("//__sandbox/faults", { method: "POST", body: { kind: "status", status: 500 } });
    const second = api.faults.list()[0]?.id ?? "";
    expect((await call(`//__sandbox/faults/${second}`, { method: "DELETE" })).status).toBe(200);
    expect((await call(`//__sandbox/faults/${second}`, { method: "DELETE" })).status).toBe(404);
    await call("//__sandbox/faults", { method: "POST", body: { kind: "latency", ms: 1 } });
    await call("//__sandbox/faults", { method: "DELETE" });
    expect(api.faults.list()).toEqual([]);
    const bad = await call("//__sandbox/faults", { method: "POST", body: { kind: "status", status: 99 } });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ hasError: true, error: { errorCode: "VALIDATION_FAILED" } });
  });
});

describe("in-process fetch", () => {
  it("rejects with the signal's reason when aborted during latency, as fetch does", async () => {
    const api = createFakeSupplierApi();
    api.faults.add({ kind: "latency", ms: 10_000 });
    const started = performance.now();
    const error = await api
      .fetch("http://fake.test/api/v1/surveys", {
        headers: { [API_KEY_HEADER]: DEFAULT_API_KEY },
        signal: AbortSignal.timeout(30),
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("TimeoutError");
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const api = createFakeSupplierApi();
    const controller = new AbortController();
    controller.abort();
    await expect(api.fetch("http://fake.test/api/v1/surveys", { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("accepts a Request, a URL or a string, and can stand in for globalThis.fetch", async () => {
    const api = createFakeSupplierApi();
    const fetchLike: typeof fetch = api.fetch;
    const headers = { [API_KEY_HEADER]: DEFAULT_API_KEY };
    const url = "http://anything.example/api/v1/collection/languages";
    for (const input of [url, new URL(url), new Request(url, { headers })]) {
      const response = await fetchLike(input, { headers });
      expect(response.status).toBe(200);
    }
  });

  it("rejects a relative URL with a TypeError, as fetch does", async () => {
    const api = createFakeSupplierApi();
    await expect(api.fetch("/api/v1/surveys")).rejects.toBeInstanceOf(TypeError);
  });
});

describe("connection reset over HTTP", () => {
  it("really destroys the socket: a raw TCP client sees the connection end with no response", async () => {
    const { connect } = await import("node:net");
    const api = createFakeSupplierApi();
    const server = await api.listen();
    api.faults.add({ kind: "connection-reset" });
    try {
      const received = await new Promise<{ data: string; error: string | undefined }>((resolve) => {
        const socket = connect(server.port, "127.0.0.1", () => {
          socket.write(`GET /api/v1/surveys HTTP/1.1\r\nHost: x\r\n${API_KEY_HEADER}: ${DEFAULT_API_KEY}\r\n\r\n`);
        });
        let data = "";
        let error: string | undefined;
        socket.on("data", (chunk: Buffer) => (data += chunk.toString()));
        socket.on("error", (caught: NodeJS.ErrnoException) => (error = caught.code));
        socket.on("close", () => {
          resolve({ data, error });
        });
      });
      expect(received.data).toBe("");
      expect(received.error).toBe("ECONNRESET");
    } finally {
      await api.close();
    }
  });
});
