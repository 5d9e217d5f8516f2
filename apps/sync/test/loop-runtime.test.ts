import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loopDatabasePath } from "../src/loop/store/sqlite-loop-store.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { ManualClock } from "./manual-clock.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The loop's background tasks run on the clock the service is given: the window advance and the
 * pruning of old hourly counts happen when the test moves time, not after a real ten minutes.
 */

const HOUR = 3_600_000;
const hourOf = (at: number) => Math.floor(at / HOUR);
/** The interval tasks of the loop (the cycle follower waits for cycles instead). */
const INTERVAL_TASKS = 5;

describe("the loop's background tasks on an injected clock", () => {
  let harness: ServiceHarness | undefined;
  let directory: string | undefined;
  afterEach(async () => {
    await harness?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it("advances the windows and prunes hourly counts older than 8 days when time moves, and not before", async () => {
    directory = mkdtempSync(join(tmpdir(), "sds-loop-runtime-"));
    const path = join(directory, "sds.db");
    const clock = new ManualClock(Date.now());
    harness = await startServiceHarness({
      api: loopFake([loopSurvey(9601, { Cpi: "1.00" })]),
      database: { kind: "sqlite", path },
      clock,
    });
    const store = harness.service.loop.store;
    const nineDaysAgo = new Date(clock.now() - 9 * 24 * HOUR);
    await store.recordEntry({ token: "old", surveyId: 9601, uid: "u", cpi: 1, at: nineDaysAgo });
    await store.recordOutcome({ token: "old", outcome: "complete", at: nineDaysAgo });
    const loopDb = new DatabaseSync(loopDatabasePath(path), { readOnly: true });
    const count = loopDb.prepare("SELECT COUNT(*) AS n FROM loop_survey_hours WHERE hour < ?");
    const edge = loopDb.prepare("SELECT value FROM loop_counters WHERE name = 'window-edge:last24h'");
    const read = () => ({
      oldHours: (count.get(hourOf(clock.now() - 8 * 24 * HOUR)) as { n: number }).n,
      edge: (edge.get() as { value: number }).value,
    });
    try {
      await vi.waitFor(() => {
        expect(clock.sleeping).toBe(INTERVAL_TASKS);
      });
      const before = read();
      expect(before.oldHours).toBeGreaterThan(0);
      // Two hours later: each interval task is due once.
      clock.advance(2 * HOUR);
      await vi.waitFor(() => {
        expect(read()).toEqual({ oldHours: 0, edge: hourOf(clock.now()) - 24 });
      });
      expect(read().edge).toBeGreaterThan(before.edge);
    } finally {
      loopDb.close();
    }
  });

  it("stops with the service: no task runs against the closed store when time moves afterwards", async () => {
    const clock = new ManualClock(Date.now());
    harness = await startServiceHarness({ api: loopFake([loopSurvey(9602, { Cpi: "1.00" })]), clock });
    await vi.waitFor(() => {
      expect(clock.sleeping).toBe(INTERVAL_TASKS);
    });
    await harness.service.stop();
    expect(clock.sleeping).toBe(0);
    clock.advance(24 * HOUR);
  });
});
