import type { EncryptionSettings } from "@sds/schemas";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeSupplierApi } from "@sds/testing";
import type { SyncStatus } from "@sds/sync-client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import type { OutcomeRecord } from "../src/loop/store/loop-store.ts";
import { waitFor } from "./harness.ts";
import { startServiceHarness, type ServiceHarness, type ServiceHarnessOptions } from "./service-harness.ts";
import { storeCases } from "./store-cases.ts";

/*
 * GET /v1/outcomes, the outcome feed, over real HTTP on both stores: long-polling with `wait`
 * (the change feed's mechanism), also across replicas on PostgreSQL, and retention
 * (SYNC_OUTCOME_RETENTION_SECONDS: nothing pruned by default, 410 behind the horizon).
 */

interface ErrorBody {
  error: { code: string; message: string };
}

interface OutcomePage {
  outcomes: OutcomeRecord[];
  next: number;
  hasMore: boolean;
}

/** Unsigned S2S calls: the account's outgoing encryption is off, the receiver checks nothing. */
const unsigned: EncryptionSettings = {
  Enabled: false,
  Algorithm: "SHA256",
  QueryParameter: "hash",
  EncryptionKey: "unused-key",
};

/*
 * The services here start once per suite, in its beforeAll: that runs after storeCases' own
 * (the file's), so it knows whether PostgreSQL answers and starts nothing when it does not.
 */
const { stores, postgres, postgresDatabase, usable } = storeCases("sds_sync_outcome_feed");

function fakeApi(): FakeSupplierApi {
  return createFakeSupplierApi({
    suppliers: [
      {
        supplierId: DEFAULT_SUPPLIER_ID,
        apiKey: DEFAULT_API_KEY,
        surveys: 3,
        account: { OutgoingEncryption: unsigned },
      },
    ],
  });
}

async function getJson<T>(harness: ServiceHarness, path: string, status = 200): Promise<T> {
  const response = await harness.request(path);
  expect(response.status, `${path} answered ${response.status}`).toBe(status);
  return (await response.json()) as T;
}

async function receive(harness: ServiceHarness, outcome: string, token: string): Promise<void> {
  const response = await fetch(
    `${harness.service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`,
  );
  expect(response.status, await response.clone().text()).toBe(200);
}

/** Issues an entry link through sds-sync once its matcher holds the survey (it follows the start-up cycle). */
async function issueEntryLink(harness: ServiceHarness, surveyId: number, token: string): Promise<void> {
  await waitFor(async () => {
    const response = await harness.request("/v1/entry-links", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ surveyId, token, uid: "r1" }),
    });
    if (response.status === 404) return false;
    expect(response.status, await response.text()).toBe(201);
    return true;
  }, 20_000);
}

/** Resolves once `harness`'s outcome feed has a reader waiting on it (the route entered the long-poll). */
function watchWaits(harness: ServiceHarness): { readonly waiting: () => number } {
  const spy = vi.spyOn(harness.service.loop.outcomeNotifier, "waitForSequenceAbove");
  return { waiting: () => spy.mock.calls.length };
}

/**
 * Long-polls `reader`'s outcome feed from its end, and once the request is inside the wait (on
 * an empty feed, before anything is recorded) records `outcome` for `token` through
 * `receiver`'s receiver. Returns where the feed ended before and the page the long-poll got.
 */
async function longPollWhileRecording(
  reader: ServiceHarness,
  receiver: ServiceHarness,
  outcome: string,
  token: string,
): Promise<{ next: number; page: OutcomePage }> {
  const { next } = await getJson<OutcomePage>(reader, "/v1/outcomes?limit=1000");
  const watch = watchWaits(reader);
  const waiting = getJson<OutcomePage>(reader, `/v1/outcomes?after=${next}&wait=30`);
  await waitFor(() => watch.waiting() === 1, 20_000);
  await receive(receiver, outcome, token);
  return { next, page: await waiting };
}

/**
 * The fake and sds-sync against it on `database` (SQLite in a temporary directory when
 * undefined); `stop` ends both (storeCases drops a PostgreSQL schema after the file).
 */
async function startFeedService(
  database: DatabaseConfig | undefined,
  options: Omit<ServiceHarnessOptions, "api" | "database"> = {},
): Promise<{ api: FakeSupplierApi; harness: ServiceHarness; stop: () => Promise<void> }> {
  const api = fakeApi();
  const harness = await startServiceHarness({ api, ...options, ...(database ? { database } : {}) });
  const stop = async () => {
    await harness.close();
    await api.close();
  };
  return { api, harness, stop };
}

/** Lifetime counts per survey, as the status reports them (`loop.surveys`). */
const lifetimePerSurvey = (status: SyncStatus) =>
  status.loop.surveys.map(({ surveyId, lifetime }) => ({ surveyId, ...lifetime }));

describe.each(stores)("the outcome feed over HTTP on $name", (store) => {
  let api: FakeSupplierApi;
  let harness: ServiceHarness;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (!usable(store)) return;
    ({ api, harness, stop } = await startFeedService(store.database()));
  });
  afterAll(() => stop?.());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("long-polls GET /v1/outcomes?wait until the receiver records an outcome, then answers with it", async (context) => {
    if (!usable(store)) context.skip();
    const { next, page } = await longPollWhileRecording(harness, harness, "complete", "poll-1");
    expect(page.outcomes.map((record) => [record.sequence, record.token, record.outcome])).toEqual([
      [next + 1, "poll-1", "complete"],
    ]);
    expect(page).toMatchObject({ next: next + 1, hasMore: false });
  });

  it("answers at once when outcomes already follow `after`, and an empty page once the wait is over", async (context) => {
    if (!usable(store)) context.skip();
    const { next } = await getJson<OutcomePage>(harness, "/v1/outcomes?limit=1000");
    await receive(harness, "terminate", "poll-2");
    const watch = watchWaits(harness);
    const ready = await getJson<OutcomePage>(harness, `/v1/outcomes?after=${next}&wait=30`);
    expect(ready.outcomes.map((record) => record.token)).toEqual(["poll-2"]);
    expect(watch.waiting(), "outcomes were there: no long-poll").toBe(0);
    const empty = await getJson<OutcomePage>(harness, `/v1/outcomes?after=${next + 1}&wait=1`);
    expect(empty).toEqual({ outcomes: [], next: next + 1, hasMore: false });
    expect(watch.waiting()).toBe(1);
    for (const query of ["wait=61", "wait=soon", "wait=-1"]) await getJson(harness, `/v1/outcomes?${query}`, 400);
  });

  it("keeps entry links and outcomes forever by default: a pruning pass deletes none of them", async (context) => {
    if (!usable(store)) context.skip();
    const [survey] = api.listSurveys(DEFAULT_SUPPLIER_ID);
    await issueEntryLink(harness, survey?.SurveyId ?? 0, "kept-1");
    await receive(harness, "complete", "kept-1");
    const before = await getJson<OutcomePage>(harness, "/v1/outcomes?limit=1000");
    const pass = await harness.service.pruner.pruneOnce();
    expect(pass.ran).toBe(true);
    expect(pass.deleted).toMatchObject({ outcomes: 0, entries: 0 });
    expect(await getJson<OutcomePage>(harness, "/v1/outcomes?after=0&limit=1000")).toEqual(before);
    const status = await getJson<SyncStatus>(harness, "/v1/sync/status");
    expect(lifetimePerSurvey(status)).toContainEqual(
      expect.objectContaining({ surveyId: survey?.SurveyId, entries: 1 }),
    );
  });
});

describe.each(stores)("outcome retention over HTTP on $name", (store) => {
  const RETENTION_SECONDS = 1;
  let api: FakeSupplierApi;
  let harness: ServiceHarness;
  let stop: (() => Promise<void>) | undefined;
  /** The pruner's clock: the wall clock until the test moves it ahead. */
  const pruneAt: { ms: number | undefined } = { ms: undefined };
  beforeAll(async () => {
    if (!usable(store)) return;
    // Passes only when the test asks (pruneOnce), so nothing is pruned behind its back.
    ({ api, harness, stop } = await startFeedService(store.database(), {
      config: { outcomeRetentionSeconds: RETENTION_SECONDS },
      pruneEveryMs: 3_600_000,
      pruneClock: () => pruneAt.ms ?? Date.now(),
    }));
  });
  afterAll(() => stop?.());

  it("prunes entry links and outcomes past SYNC_OUTCOME_RETENTION_SECONDS and answers 410 outcomes_expired behind the horizon", async (context) => {
    if (!usable(store)) context.skip();
    const [survey] = api.listSurveys(DEFAULT_SUPPLIER_ID);
    await issueEntryLink(harness, survey?.SurveyId ?? 0, "old-1");
    await receive(harness, "complete", "old-1");
    await receive(harness, "terminate", "old-2");
    // The pruner's time moves past the horizon of what was recorded so far; nothing waits.
    pruneAt.ms = Date.now() + RETENTION_SECONDS * 1000 + 200;
    const pass = await harness.service.pruner.pruneOnce();
    expect(pass.deleted).toMatchObject({ outcomes: 2, entries: 1 });
    // The counts are kept as they were recorded: pruning the entries does not take back what they earned.
    const status = await getJson<SyncStatus>(harness, "/v1/sync/status");
    expect(lifetimePerSurvey(status)).toEqual([
      expect.objectContaining({ surveyId: survey?.SurveyId, entries: 1, completes: 1 }),
    ]);

    // A reader that kept up goes on; one behind the horizon is told so, and where to go on from.
    await receive(harness, "overquota", "young-1");
    const continued = await getJson<OutcomePage>(harness, "/v1/outcomes?after=2");
    expect(continued.outcomes.map((record) => [record.sequence, record.token])).toEqual([[3, "young-1"]]);
    for (const after of [0, 1]) {
      const expired = await getJson<ErrorBody>(harness, `/v1/outcomes?after=${after}`, 410);
      expect(expired.error.code).toBe("outcomes_expired");
      expect(expired.error.message).toContain("GET /v1/outcomes?after=2");
    }
    // A long-poll behind the horizon is answered at once, without waiting.
    const watch = watchWaits(harness);
    expect((await harness.request("/v1/outcomes?after=1&wait=30")).status).toBe(410);
    expect(watch.waiting()).toBe(0);
  });
});

describe("the outcome feed across two replicas on one PostgreSQL", () => {
  let api: FakeSupplierApi | undefined;
  let reader: ServiceHarness;
  let receiver: ServiceHarness;
  beforeAll(async () => {
    if (!postgres()) return;
    // One schema for both replicas: the receiver's outcome reaches the reader through it.
    const database = postgresDatabase();
    api = fakeApi();
    reader = await startServiceHarness({ api, database, replicaId: "reader" });
    receiver = await startServiceHarness({ api, database, replicaId: "receiver" });
  });
  afterAll(async () => {
    if (api === undefined) return;
    await receiver.close();
    await reader.close();
    await api.close();
  });

  it("wakes a long-poll on one replica when another replica's receiver records the outcome", async (context) => {
    if (!postgres()) context.skip();
    const { page } = await longPollWhileRecording(reader, receiver, "overquota", "elsewhere-1");
    expect(page.outcomes.map((record) => [record.token, record.outcome])).toEqual([["elsewhere-1", "overquota"]]);
    vi.restoreAllMocks();
  });
});
