import type { Readiness, SyncStatus } from "@sds/sync-client";
import { describe, expect, it } from "vitest";
import { createStyles } from "../../framework/styles.ts";
import * as tables from "../../framework/table.ts";
import { renderStatus, summarizeStatus } from "./status-view.ts";

const plain = createStyles(false);
const health: Readiness = { ready: true };
const window = {
  entries: 4,
  completes: 1,
  reversals: 0,
  pending: 0,
  earnings: 1234.5,
  conversion: 0.25,
  earningsPerEntry: 308.625,
};

/** A status answer of a follower: only what the view reads is filled in. */
function followerStatus(replica: Partial<SyncStatus["replica"]>, currency: string): SyncStatus {
  return {
    replica: { id: "replica-b", leader: false, running: true, consecutiveFailures: 0, nextRunAt: null, ...replica },
    currency,
    runs: [],
    store: { kind: "postgres", live: 3, closed: 1, needsRefetch: 0, quarantined: 0, latestSequence: 9 },
    loop: { totals: { lifetime: window, last24h: window, last7d: window }, warnings: [] },
  } as unknown as SyncStatus;
}

describe("sds sync status on a terminal", () => {
  it("names the replica that leads on a follower, with its address where known", () => {
    const known = summarizeStatus(
      "http://10.0.0.6:8787",
      health,
      followerStatus({ leaderId: "replica-a", leaderAddress: "http://10.0.0.5:8787" }, "USD"),
    );
    expect(known.role).toMatchObject({ leader: false, leaderId: "replica-a", leaderAddress: "http://10.0.0.5:8787" });
    expect(renderStatus(known, plain, tables)).toMatch(/^Leader\s+replica replica-a at http:\/\/10\.0\.0\.5:8787$/m);
    const unknown = summarizeStatus("http://10.0.0.6:8787", health, followerStatus({}, "USD"));
    expect(renderStatus(unknown, plain, tables)).toMatch(/^Leader\s+not known yet$/m);
  });

  it("shows earnings with the currency's symbol, and the currency in --json", () => {
    const summary = summarizeStatus("http://127.0.0.1:8787", health, followerStatus({}, "EUR"));
    expect(summary.currency).toBe("EUR");
    const text = renderStatus(summary, plain, tables);
    expect(text).toMatch(/^lifetime\s+4\s+1\s+0\s+0\s+€1,234\.50\s+25\.0 %\s+€308\.63$/m);
  });
});
