import { afterEach, describe, expect, it } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

const token = "hostile-test-token-0123456789";
const auth = { authorization: `Bearer ${token}` };

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

    const run = (await (await request("/v1/sync/run", { method: "POST", headers: auth })).json()) as { run: { counts: { closed: number; closuresHeld: number } } };
    expect(run.run.counts).toMatchObject({ closed: 0, closuresHeld: 12 });
    const status = (await (await request("/v1/sync/status", { headers: auth })).json()) as { closures: unknown; store: { live: number } };
    expect(status).toMatchObject({ closures: { count: 12, absentCycles: 1, confirmCycles: 3, maxShare: 0.25, confirmed: 0 }, store: { live: 12 } });
    expect(await (await request("/metrics")).text()).toMatch(/^sds_sync_closures_held 12$/m);
    const ready = await request("/readyz");
    expect([ready.status, await ready.json()]).toEqual([200, expect.objectContaining({ ready: true, closuresHeld: 12 })]);

    expect((await request("/v1/sync/closures/confirm", { method: "POST" })).status).toBe(401);
    const confirm = await request("/v1/sync/closures/confirm", { method: "POST", headers: auth });
    expect([confirm.status, await confirm.json()]).toEqual([202, expect.objectContaining({ confirmed: 12 })]);

    const applied = (await (await request("/v1/sync/run", { method: "POST", headers: auth })).json()) as { run: { counts: { closed: number } } };
    expect(applied.run.counts).toMatchObject({ closed: 12, closuresHeld: 0 });
    expect(await (await request("/metrics")).text()).toMatch(/^sds_sync_closures_held 0$/m);
  });
});
