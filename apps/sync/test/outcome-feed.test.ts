import type { EncryptionSettings } from "@sds/schemas";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeSupplierApi } from "@sds/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { DatabaseConfig } from "../src/config.ts";
import type { OutcomeRecord } from "../src/store/outcome-store.ts";
import { waitFor } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * GET /v1/outcomes, the outcome feed, over real HTTP on both stores: long-polling with `wait`
 * (the change feed's mechanism), also across replicas on PostgreSQL.
 */

interface OutcomePage {
  outcomes: OutcomeRecord[];
  next: number;
  hasMore: boolean;
}

/** Unsigned S2S calls: the account's outgoing encryption is off, the receiver checks nothing. */
const unsigned: EncryptionSettings = { Enabled: false, Algorithm: "SHA256", QueryParameter: "hash", EncryptionKey: "unused-key" };

const pgAvailable = await postgresAvailable();
const stores: [string, () => DatabaseConfig | undefined][] = [["SQLite", () => undefined]];
if (pgAvailable) stores.push(["PostgreSQL", () => ({ kind: "postgres", connectionString: testDatabaseUrl, schema: freshSchemaName("sds_sync_outcome_feed") })]);

function fakeApi(): FakeSupplierApi {
  return createFakeSupplierApi({ suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 3, account: { OutgoingEncryption: unsigned } }] });
}

async function getJson<T>(harness: ServiceHarness, path: string, status = 200): Promise<T> {
  const response = await harness.request(path);
  expect(response.status, `${path} answered ${response.status}`).toBe(status);
  return (await response.json()) as T;
}

async function receive(harness: ServiceHarness, outcome: string, token: string): Promise<void> {
  const response = await fetch(`${harness.service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`);
  expect(response.status, await response.clone().text()).toBe(200);
}

/** Resolves once `harness`'s outcome feed has a reader waiting on it (the route entered the long-poll). */
function watchWaits(harness: ServiceHarness): { readonly waiting: () => number } {
  const spy = vi.spyOn(harness.service.loop.outcomeNotifier, "waitForSequenceAbove");
  return { waiting: () => spy.mock.calls.length };
}

describe.each(stores)("the outcome feed over HTTP on %s", (_name, databaseFor) => {
  let api: FakeSupplierApi;
  let harness: ServiceHarness;
  let database: DatabaseConfig | undefined;
  beforeAll(async () => {
    api = fakeApi();
    database = databaseFor();
    harness = await startServiceHarness({ api, ...(database ? { database } : {}) });
  });
  afterAll(async () => {
    await harness.close();
    await api.close();
    if (database?.kind === "postgres") await dropSchema(database.schema);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("long-polls GET /v1/outcomes?wait until the receiver records an outcome, then answers with it", async () => {
    const { next } = await getJson<OutcomePage>(harness, "/v1/outcomes?limit=1000");
    const watch = watchWaits(harness);
    const waiting = getJson<OutcomePage>(harness, `/v1/outcomes?after=${next}&wait=30`);
    // The request is inside the long-poll, on an empty feed, before anything is recorded.
    await waitFor(() => watch.waiting() === 1, 20_000);
    await receive(harness, "complete", "poll-1");
    const page = await waiting;
    expect(page.outcomes.map((record) => [record.sequence, record.token, record.outcome])).toEqual([[next + 1, "poll-1", "complete"]]);
    expect(page).toMatchObject({ next: next + 1, hasMore: false });
  });

  it("answers at once when outcomes already follow `after`, and an empty page once the wait is over", async () => {
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
});

describe.skipIf(!pgAvailable)("the outcome feed across two replicas on one PostgreSQL", () => {
  const database: DatabaseConfig = { kind: "postgres", connectionString: testDatabaseUrl, schema: freshSchemaName("sds_sync_outcome_replicas") };
  let api: FakeSupplierApi;
  let reader: ServiceHarness;
  let receiver: ServiceHarness;
  beforeAll(async () => {
    api = fakeApi();
    reader = await startServiceHarness({ api, database, replicaId: "reader" });
    receiver = await startServiceHarness({ api, database, replicaId: "receiver" });
  });
  afterAll(async () => {
    await receiver.close();
    await reader.close();
    await api.close();
    await dropSchema(database.schema);
  });

  it("wakes a long-poll on one replica when another replica's receiver records the outcome", async () => {
    const { next } = await getJson<OutcomePage>(reader, "/v1/outcomes?limit=1000");
    const watch = watchWaits(reader);
    const waiting = getJson<OutcomePage>(reader, `/v1/outcomes?after=${next}&wait=30`);
    await waitFor(() => watch.waiting() === 1, 20_000);
    await receive(receiver, "overquota", "elsewhere-1");
    const page = await waiting;
    expect(page.outcomes.map((record) => [record.token, record.outcome])).toEqual([["elsewhere-1", "overquota"]]);
    vi.restoreAllMocks();
  });
});
