import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loopDatabasePath } from "../src/loop/store/sqlite-loop-store.ts";
import { DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { ManualClock } from "./manual-clock.ts";
import type { FetchFunction } from "../src/upstream/counting-fetch.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The loop's background tasks run on the clock the service is given: the window advance and the
 * pruning of old hourly counts happen when the test moves time, not after a real ten minutes.
 */

const HOUR = 3_600_000;
/** How long a wait below may take before the test fails: a hang detector, not a budget (a loaded machine is slow). */
const WAIT = { timeout: 20_000 };
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
      }, WAIT);
      const before = read();
      expect(before.oldHours).toBeGreaterThan(0);
      // Two hours later: each interval task is due once.
      clock.advance(2 * HOUR);
      await vi.waitFor(() => {
        expect(read()).toEqual({ oldHours: 0, edge: hourOf(clock.now()) - 24 });
      }, WAIT);
      expect(read().edge).toBeGreaterThan(before.edge);
    } finally {
      loopDb.close();
    }
  });

  it("fetches the routing data again after a cycle once the refresh period has passed on the clock, and not before", async () => {
    const clock = new ManualClock(Date.now());
    harness = await startServiceHarness({
      api: loopFake([loopSurvey(9603, { Cpi: "1.00", Has_Survey_Groups: true })]),
      config: { groupsRefreshSeconds: 600, statsRefreshSeconds: 0 },
      clock,
    });
    const { api, service } = harness;
    const groupFetches = (surveyId: number) =>
      api.requestLog().filter((entry) => entry.operationId === "getSurveyGroups" && entry.path.includes(`/${surveyId}`))
        .length;
    const storedFetch = async (surveyId: number) =>
      (await service.loop.store.readRoutingData()).fetches.find(
        (fetch) => fetch.surveyId === surveyId && fetch.kind === "groups",
      );
    /** A new grouped survey, then a cycle: its groups are fetched at once, so the stored fetch says the cycle's refresh has run. */
    const cycleWithNewSurvey = async (surveyId: number) => {
      api.addSurvey(DEFAULT_SUPPLIER_ID, loopSurvey(surveyId, { Cpi: "1.00", Has_Survey_Groups: true }));
      expect((await harness?.request("/v1/sync/run", { method: "POST" }))?.status).toBe(200);
      await vi.waitFor(async () => {
        expect(await storedFetch(surveyId)).toBeDefined();
      }, WAIT);
    };
    expect(groupFetches(9603)).toBe(1);
    clock.advance(599_999);
    await cycleWithNewSurvey(9604);
    expect(groupFetches(9603)).toBe(1);
    clock.advance(1);
    await cycleWithNewSurvey(9605);
    expect(groupFetches(9603)).toBe(2);
    expect(Date.parse((await storedFetch(9603))?.fetchedAt ?? "")).toBe(clock.now());
  });

  it("waits for a first account read that hangs until five seconds have passed on the clock, then starts without it", async () => {
    const clock = new ManualClock(Date.now());
    // The account read never answers until aborted (the service's stop aborts it).
    const hangingAccount: FetchFunction = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!new URL(url).pathname.endsWith("/supplier-account")) return fetch(input, init);
      return new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => {
          reject(init.signal?.reason as Error);
        });
      });
    };
    let started = false;
    const starting = startServiceHarness({ api: loopFake([loopSurvey(9606)]), fetch: hangingAccount, clock }).then(
      (started_) => {
        started = true;
        return started_;
      },
    );
    // The start's wait is the only sleeper until the loop's tasks start.
    await vi.waitFor(() => {
      expect(clock.sleeping).toBe(1);
    }, WAIT);
    clock.advance(4_999);
    expect([started, clock.sleeping]).toEqual([false, 1]);
    clock.advance(1);
    harness = await starting;
    // Until a read succeeds, the receiver refuses outcomes and senders retry.
    expect(harness.service.loop.account.fetchedAt).toBeUndefined();
  });

  it("stops with the service: no task runs against the closed store when time moves afterwards", async () => {
    const clock = new ManualClock(Date.now());
    harness = await startServiceHarness({ api: loopFake([loopSurvey(9602, { Cpi: "1.00" })]), clock });
    await vi.waitFor(() => {
      expect(clock.sleeping).toBe(INTERVAL_TASKS);
    }, WAIT);
    await harness.service.stop();
    expect(clock.sleeping).toBe(0);
    clock.advance(24 * HOUR);
  });
});
