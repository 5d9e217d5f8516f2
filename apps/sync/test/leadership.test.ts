import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeServer, type FakeSupplierApi } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../src/store/postgres-store.ts";
import { waitFor } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";

const available = await postgresAvailable();

describe.skipIf(!available)("two replicas on one PostgreSQL", () => {
  const schema = freshSchemaName("sds_sync_replicas");
  let api: FakeSupplierApi;
  let fake: FakeServer;
  let leader: ServiceProcess;
  let leaderUrl: string;
  let follower: ServiceHarness;

  beforeAll(async () => {
    api = createFakeSupplierApi({ suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 50 }], requestLogLimit: 1_000_000 });
    fake = await api.listen();
    leader = spawnService({ SDS_BASE_URL: fake.baseUrl, SDS_API_KEY: DEFAULT_API_KEY, DATABASE_URL: schemaDatabaseUrl(schema), SYNC_INTERVAL: "1" });
    leaderUrl = await leader.url;
    await waitFor(async () => (await fetch(`${leaderUrl}/readyz`)).status === 200, 30_000);
    follower = await startServiceHarness({
      api,
      database: { kind: "postgres", connectionString: testDatabaseUrl, schema },
      config: { intervalSeconds: 1 },
      replicaId: "in-process-follower",
      followerPollMs: 100,
    });
  }, 60_000);
  afterAll(async () => {
    if (leader.child.exitCode === null && leader.child.signalCode === null) leader.child.kill("SIGKILL");
    await follower.close();
    await fake.close();
    await api.close();
    await dropSchema(schema);
  });

  const runsByReplica = async () => {
    const store = await openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 1 });
    try {
      return (await store.listRuns(1000)).map((run) => run.replicaId);
    } finally {
      await store.close();
    }
  };

  it("lets exactly one replica sync while both serve reads", async () => {
    // Several intervals pass: the leader keeps cycling, the follower never does.
    await waitFor(async () => (await runsByReplica()).length >= 3, 15_000);
    expect(new Set(await runsByReplica()).size).toBe(1);
    expect((await runsByReplica())).not.toContain("in-process-follower");

    const status = (await (await follower.request("/v1/sync/status")).json()) as { replica: { leader: boolean } };
    expect(status.replica.leader).toBe(false);
    const run = await follower.request("/v1/sync/run", { method: "POST" });
    expect(run.status).toBe(409);
    expect(((await (await follower.request("/v1/surveys?limit=1000")).json()) as { surveys: unknown[] }).surveys).toHaveLength(50);
    expect((await follower.request("/readyz")).status).toBe(200);
    expect(await (await follower.request("/metrics")).text()).toMatch(/^sds_sync_leader 0$/m);
  });

  it("hands leadership to the survivor when the leader is killed", async () => {
    leader.child.kill("SIGKILL");
    await leader.exited;
    await waitFor(() => follower.service.engine.status().leader, 15_000);
    await waitFor(async () => (await runsByReplica()).includes("in-process-follower"), 15_000);

    const [target] = api.listSurveys(DEFAULT_SUPPLIER_ID);
    api.closeSurvey(target?.SurveyId ?? 0);
    const run = await follower.request("/v1/sync/run", { method: "POST" });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ run: { status: "succeeded", counts: { closed: 1 } } });
    const changes = (await (await follower.request("/v1/changes?limit=1000")).json()) as { changes: { sequence: number }[] };
    expect(changes.changes.map((change) => change.sequence)).toEqual(changes.changes.map((_, index) => index + 1));
    expect(changes.changes).toHaveLength(51);
  });
});
