import { describe, expect, it } from "vitest";
import type { SyncStore } from "../inventory-store/store.ts";
import { checkMetrics, requirePromtool } from "../../test/promtool.ts";
import { createSyncMetrics } from "./sync-metrics.ts";

const promtool = requirePromtool();

/** The two reads the metrics make at scrape time; `fail` makes them throw like an unreachable store. */
function statsStore(options: { fail?: boolean } = {}): SyncStore {
  const stats = { live: 12, closed: 3, needsRefetch: 1, quarantined: 2, latestSequence: 40 };
  return {
    stats: () => (options.fail ? Promise.reject(new Error("store down")) : Promise.resolve(stats)),
    lastSuccessfulRun: () =>
      options.fail
        ? Promise.reject(new Error("store down"))
        : Promise.resolve({ finishedAt: new Date(1_700_000_000_000) }),
  } as unknown as SyncStore;
}

describe("createSyncMetrics", () => {
  it("exposes every series with known labels at 0 before anything happens, label-less counters included", async () => {
    const text = await createSyncMetrics(statsStore()).render();
    expect(text).toMatch(/^sds_sync_quarantined_items_total 0$/m);
    for (const status of ["succeeded", "failed", "aborted"]) {
      expect(text).toContain(`sds_sync_cycles_total{status="${status}"} 0`);
      expect(text).toContain(`sds_sync_cycle_duration_seconds_count{status="${status}"} 0`);
    }
    expect(text).toContain('sds_sync_changes_total{type="reopened"} 0');
    expect(text).toContain('sds_sync_fetch_failures_total{operation="getSurveyQuotas"} 0');
  });

  it("reads the shared gauges from the store at scrape time", async () => {
    const text = await createSyncMetrics(statsStore()).render();
    expect(text).toContain('sds_sync_surveys{status="live"} 12');
    expect(text).toContain('sds_sync_surveys{status="closed"} 3');
    expect(text).toMatch(/^sds_sync_surveys_needing_refetch 1$/m);
    expect(text).toMatch(/^sds_sync_quarantine_items 2$/m);
    expect(text).toMatch(/^sds_sync_change_sequence 40$/m);
    expect(text).toMatch(/^sds_sync_last_success_timestamp_seconds 1700000000$/m);
  });

  it("still answers when the store cannot be read, with the process metrics", async () => {
    const text = await createSyncMetrics(statsStore({ fail: true })).render();
    expect(text).toMatch(/^sds_sync_change_sequence 0$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+$/m);
    expect(text).toContain("# TYPE nodejs_gc_duration_seconds histogram");
  });

  it("counts events, with labels, in the exposition", async () => {
    const metrics = createSyncMetrics(statsStore());
    metrics.cycles.inc({ status: "succeeded" });
    metrics.cycleDuration.observe({ status: "succeeded" }, 0.3);
    metrics.quarantinedItems.inc(2);
    metrics.upstreamRequests.inc({ operation: "listSurveys", status: "429" });
    const text = await metrics.render();
    expect(text).toContain('sds_sync_cycles_total{status="succeeded"} 1');
    expect(text).toContain('sds_sync_cycle_duration_seconds_bucket{le="0.5",status="succeeded"} 1');
    expect(text).toMatch(/^sds_sync_quarantined_items_total 2$/m);
    expect(text).toContain('sds_sync_upstream_requests_total{operation="listSurveys",status="429"} 1');
  });

  it.skipIf(promtool.path === undefined)(
    `renders an exposition promtool check metrics accepts${promtool.reason ? ` (skipped: ${promtool.reason})` : ""}`,
    async () => {
      const check = checkMetrics(promtool.path ?? "promtool", await createSyncMetrics(statsStore()).render());
      expect(check.output).toBe("");
      expect(check.status).toBe(0);
    },
  );
});
