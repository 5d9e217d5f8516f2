import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ChangeRecord, SurveyDetail, SurveySummary } from "../src/inventory-store/store.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { storeCases } from "./store-cases.ts";

interface SurveyList {
  surveys: SurveySummary[];
  nextCursor: string | null;
  sequence: number;
}
interface ChangePage {
  changes: ChangeRecord[];
  next: number;
  hasMore: boolean;
}
interface ErrorBody {
  error: { code: string; message: string };
}

const RETENTION_SECONDS = 1;
/*
 * The service starts once per suite, in its beforeAll: that runs after storeCases' own (the
 * file's), so it knows whether PostgreSQL answers and starts nothing when it does not.
 */
const { stores, usable } = storeCases("sds_sync_retention");

describe.each(stores)("retention over HTTP on $name", (store) => {
  let harness: ServiceHarness;
  /** The pruner's clock: the wall clock until a test moves it ahead, so rows age without waiting. */
  const pruneAt: { ms: number | undefined } = { ms: undefined };
  beforeAll(async () => {
    if (!usable(store)) return;
    const database = store.database();
    harness = await startServiceHarness({
      surveys: 10,
      pruneClock: () => pruneAt.ms ?? Date.now(),
      config: { retentionSeconds: RETENTION_SECONDS },
      ...(database ? { database } : {}),
    });
  });
  afterAll(async () => {
    if (usable(store)) await harness.close();
  });

  const getJson = async <T>(path: string, status = 200): Promise<T> => {
    const response = await harness.request(path);
    expect(response.status, `${path} answered ${response.status}`).toBe(status);
    return (await response.json()) as T;
  };
  const runCycle = async () => {
    const response = await harness.request("/v1/sync/run", { method: "POST" });
    expect(response.status).toBe(200);
  };
  const liveIds = () => harness.api.listSurveys(1001).map((survey) => survey.SurveyId);

  it("answers 410 feed_expired behind the horizon, and a consumer resyncs by listing then following the feed", async (context) => {
    if (!usable(store)) context.skip();
    const caughtUp = await getJson<ChangePage>("/v1/changes?after=0&limit=1000");
    expect(caughtUp.changes.map((change) => change.type)).toEqual(Array(10).fill("opened"));

    // The first cycle's entries age past the horizon; a new cycle adds one young entry; a pass prunes.
    // The horizon is the moment before the new cycle, strictly after the first cycle's entries.
    const firstCycleEnded = Date.now();
    await vi.waitFor(() => {
      expect(Date.now()).toBeGreaterThan(firstCycleEnded);
    });
    const horizon = Date.now();
    const [closedId] = liveIds();
    harness.api.closeSurvey(closedId ?? 0);
    await runCycle();
    pruneAt.ms = horizon + RETENTION_SECONDS * 1000;
    const pass = await harness.service.pruner.pruneOnce();
    expect(pass.ran).toBe(true);
    expect(await harness.service.store.feedHorizon()).toBe(caughtUp.next);

    // A consumer that kept up continues; one that fell behind is told to resync, and how.
    const continued = await getJson<ChangePage>(`/v1/changes?after=${caughtUp.next}`);
    expect(continued.changes.map((change) => [change.type, change.surveyId])).toEqual([["closed", closedId]]);
    for (const after of [0, caughtUp.next - 1]) {
      const expired = await getJson<ErrorBody>(`/v1/changes?after=${after}`, 410);
      expect(expired.error.code).toBe("feed_expired");
      expect(expired.error.message).toMatch(/GET \/v1\/surveys/);
      expect(expired.error.message).toMatch(/GET \/v1\/changes\?after=/);
    }
    const waited = await harness.request("/v1/changes?after=0&wait=30");
    expect(waited.status, "a long-poll behind the horizon is answered at once").toBe(410);

    // The recipe: list every page, remember the first page's sequence, then follow the feed from it.
    const copy = new Map<number, SurveySummary>();
    let path = "/v1/surveys?limit=3";
    let sequence: number | undefined;
    for (;;) {
      const page = await getJson<SurveyList>(path);
      sequence ??= page.sequence;
      for (const survey of page.surveys) copy.set(survey.id, survey);
      if (page.nextCursor === null) break;
      path = `/v1/surveys?limit=3&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    expect(sequence).toBe(continued.next);

    const [repriced, closedNext] = liveIds();
    harness.api.updateSurvey(repriced ?? 0, { Cpi: "9.99" });
    harness.api.closeSurvey(closedNext ?? 0);
    const added = harness.api.addSurvey(1001);
    await runCycle();

    const feed = await getJson<ChangePage>(`/v1/changes?after=${sequence}`);
    expect(feed.changes.map((change) => change.type).sort()).toEqual(["closed", "opened", "updated"]);
    for (const change of feed.changes) {
      if (change.type === "closed") copy.delete(change.surveyId);
      else copy.set(change.surveyId, await getJson<SurveyDetail>(`/v1/surveys/${change.surveyId}`));
    }
    expect([...copy.keys()].sort((a, b) => a - b)).toEqual(liveIds());
    expect(copy.has(added.SurveyId)).toBe(true);
    expect((copy.get(repriced ?? 0)?.survey as { Cpi: string }).Cpi).toBe("9.99");
  });

  it("keeps the service ready and its status readable after pruning run records", async (context) => {
    if (!usable(store)) context.skip();
    expect((await harness.service.store.listRuns(10)).length).toBeGreaterThan(1);
    pruneAt.ms = Date.now() + RETENTION_SECONDS * 1000 + 200;
    await harness.service.pruner.pruneOnce();
    expect((await harness.request("/readyz")).status).toBe(200);
    const status = await getJson<{ runs: unknown[] }>("/v1/sync/status");
    expect(status.runs).toHaveLength(1);
  });
});
