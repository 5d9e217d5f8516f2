import { describe, expect, it } from "vitest";
import { httpCaller, inProcessCaller } from "../../test/http.ts";
import { createFakeSupplierApi, DEFAULT_API_KEY, type FakeSupplierApi } from "../index.ts";

/*
 * The system tier's (moved from faults.test.ts): a measurement of wall time over 25,000-survey
 * lists, thirteen per transport, which needs the cores to itself: the system tier runs its files
 * one at a time, while the fast tier runs every package's files at once.
 */

const transports = [
  ["over HTTP", httpCaller],
  ["in-process", (api: FakeSupplierApi) => Promise.resolve(inProcessCaller(api))],
] as const;

describe.each(transports)("the fake's latency fault %s", (_name, connect) => {
  it("counts latency from the request's arrival: the fake's own work is absorbed, and it never answers early", async () => {
    const large = createFakeSupplierApi({
      seed: 3,
      // Large enough that the fake's own work (tens of ms) stands well above a loaded machine's timer slop.
      suppliers: [{ supplierId: 1001, apiKey: DEFAULT_API_KEY, surveys: 25_000 }],
    });
    const largeCall = await connect(large);
    try {
      // The fake's own time for a 25,000-survey list, without latency (the fastest of three).
      for (let round = 0; round < 3; round++) expect((await largeCall("/surveys")).status).toBe(200);
      const processingMs = Math.min(...large.requestLog().map((entry) => entry.durationMs));
      large.clearRequestLog();
      const latencyMs = Math.ceil(processingMs) + 150;
      large.faults.add({ kind: "latency", ms: latencyMs });
      for (let round = 0; round < 10; round++) expect((await largeCall("/surveys")).status).toBe(200);
      const durations = large.requestLog().map((entry) => entry.durationMs);
      for (const duration of durations) expect(duration).toBeGreaterThanOrEqual(latencyMs);
      // Sleeping the latency and then serving would take latency + processing every time; the
      // fastest of ten keeps a busy machine's stalls out of the comparison (five were not enough
      // with two full checks running side by side on two cores: 180.8 ms against 178.5).
      expect(Math.min(...durations)).toBeLessThan(latencyMs + processingMs / 2);
    } finally {
      await large.close();
    }
  });
});
