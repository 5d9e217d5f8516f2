import { afterEach, describe, expect, it, vi } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

const token = "hostile-test-token-0123456789";
const auth = { authorization: `Bearer ${token}` };
/** How long a wait below may take before the test fails: a hang detector, not a budget (a loaded machine is slow). */
const WAIT = { timeout: 20_000 };

describe("sds-sync as a service against a hostile upstream", () => {
  let harness: ServiceHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it("says so in status, metrics, logs and readiness when it holds a mass closure, and applies it once an operator confirms", async () => {
    harness = await startServiceHarness({ surveys: 12, config: { apiToken: token } });
    const { hostile } = harness;
    const service = harness;
    const request = (path: string, init?: RequestInit) => service.request(path, init);
    hostile.use({ kind: "empty-list" });

    const run = (await (await request("/v1/sync/run", { method: "POST", headers: auth })).json()) as {
      run: { counts: { closed: number; closuresHeld: number } };
    };
    expect(run.run.counts).toMatchObject({ closed: 0, closuresHeld: 12 });
    const status = (await (await request("/v1/sync/status", { headers: auth })).json()) as {
      closures: unknown;
      store: { live: number };
    };
    expect(status).toMatchObject({
      closures: { count: 12, absentCycles: 1, confirmCycles: 3, maxShare: 0.25, confirmed: 0 },
      store: { live: 12 },
    });
    expect(await (await request("/metrics")).text()).toMatch(/^sds_sync_closures_held 12$/m);
    const ready = await request("/readyz");
    expect([ready.status, await ready.json()]).toEqual([
      200,
      expect.objectContaining({ ready: true, closuresHeld: 12 }),
    ]);

    expect((await request("/v1/sync/closures/confirm", { method: "POST" })).status).toBe(401);
    const confirm = await request("/v1/sync/closures/confirm", { method: "POST", headers: auth });
    expect([confirm.status, await confirm.json()]).toEqual([202, expect.objectContaining({ confirmed: 12 })]);

    const applied = (await (await request("/v1/sync/run", { method: "POST", headers: auth })).json()) as {
      run: { counts: { closed: number } };
    };
    expect(applied.run.counts).toMatchObject({ closed: 12, closuresHeld: 0 });
    expect(await (await request("/metrics")).text()).toMatch(/^sds_sync_closures_held 0$/m);
  });

  it("coalesces and spaces a flood of manual runs: one upstream Get Surveys however many POSTs arrive", async () => {
    harness = await startServiceHarness({ surveys: 12, config: { manualRunSpacingSeconds: 5 } });
    const { api } = harness;
    const service = harness;
    api.faults.add({ kind: "latency", ms: 300, operation: "listSurveys" });
    const listCalls = () => api.requestLog().filter((entry) => entry.operationId === "listSurveys").length;
    const before = listCalls();

    const statuses: number[] = [];
    const began = performance.now();
    while (performance.now() - began < 3000) {
      const wave = await Promise.all(
        Array.from({ length: 20 }, () => service.request("/v1/sync/run", { method: "POST" })),
      );
      for (const response of wave) {
        statuses.push(response.status);
        if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        await response.arrayBuffer();
      }
    }

    const upstream = listCalls() - before;
    const joined = statuses.filter((status) => status === 200).length;
    const refused = statuses.filter((status) => status === 429).length;
    console.info(
      `flood: ${statuses.length} POST /v1/sync/run in 3 s -> ${upstream} upstream Get Surveys (${joined} joined a cycle, ${refused} got 429)`,
    );
    expect(upstream).toBe(1);
    expect(joined + refused).toBe(statuses.length);
    expect(joined).toBeGreaterThanOrEqual(20);
    expect(statuses.length).toBeGreaterThan(100);
  });

  it("starts no cycle while a 429 storm's Retry-After is pending, manual or scheduled", async () => {
    harness = await startServiceHarness({ surveys: 5, config: { intervalSeconds: 0.5 } });
    const { api, hostile } = harness;
    const service = harness;
    hostile.use({ kind: "rate-limit-storm", retryAfterSeconds: 86_400 });
    const listCalls = () => api.requestLog().filter((entry) => entry.operationId === "listSurveys").length;

    const failed = await service.request("/v1/sync/run", { method: "POST" });
    expect(failed.status).toBe(502);
    expect(((await failed.json()) as { run: { error: string } }).run.error).toMatch(/429/);
    const after = listCalls();

    const refused = await service.request("/v1/sync/run", { method: "POST" });
    expect(refused.status).toBe(429);
    // A day asked for; the engine honours at most an hour, so that an absurd value cannot stop syncing for good.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3500);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    // The engine says when it runs next only once it sleeps until then: past the Retry-After,
    // not the 0.5 s interval. Waiting for that instead of three intervals proves the same plan.
    await vi.waitFor(async () => {
      const status = (await (await service.request("/v1/sync/status")).json()) as {
        replica: { nextRunAt: string | null };
      };
      expect(Date.parse(status.replica.nextRunAt ?? "") - Date.now()).toBeGreaterThan(3500_000);
    }, WAIT);
    expect(listCalls()).toBe(after);
  });
});
