import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeServer,
  type FakeSupplierApi,
} from "@sds/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/common/logger.ts";
import { advisoryLockKey } from "../src/database/advisory-lock.ts";
import { openPostgresStore } from "../src/inventory-store/postgres-store.ts";
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
    api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 50 }],
      requestLogLimit: 1_000_000,
    });
    fake = await api.listen();
    leader = spawnService({
      SDS_BASE_URL: fake.baseUrl,
      SDS_API_KEY: DEFAULT_API_KEY,
      DATABASE_URL: schemaDatabaseUrl(schema),
      SYNC_INTERVAL: "1",
    });
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
    expect(await runsByReplica()).not.toContain("in-process-follower");

    const status = (await (await follower.request("/v1/sync/status")).json()) as { replica: { leader: boolean } };
    expect(status.replica.leader).toBe(false);
    const run = await follower.request("/v1/sync/run", { method: "POST" });
    expect(run.status).toBe(409);
    expect(
      ((await (await follower.request("/v1/surveys?limit=1000")).json()) as { surveys: unknown[] }).surveys,
    ).toHaveLength(50);
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
    const changes = (await (await follower.request("/v1/changes?limit=1000")).json()) as {
      changes: { sequence: number }[];
    };
    expect(changes.changes.map((change) => change.sequence)).toEqual(changes.changes.map((_, index) => index + 1));
    expect(changes.changes).toHaveLength(51);
  });
});

/** The entry an operator runs: the build, not the sources. */
const builtMain = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/** `sds_sync_leader` as a replica's /metrics reports it now. */
async function leaderGauge(url: string): Promise<number> {
  const match = /^sds_sync_leader (\d)$/m.exec(await (await fetch(`${url}/metrics`)).text());
  if (!match?.[1]) throw new Error(`${url}/metrics has no sds_sync_leader`);
  return Number(match[1]);
}

describe.skipIf(!available)("two replicas on one PostgreSQL when the leader's session is terminated", () => {
  const schema = freshSchemaName("sds_sync_terminate");
  let api: FakeSupplierApi;
  let fake: FakeServer;
  let leader: ServiceProcess;
  let leaderUrl: string;
  let follower: ServiceHarness;
  const followerLog: string[] = [];

  beforeAll(async () => {
    if (!existsSync(builtMain))
      throw new Error("apps/sync/dist/main.js is missing: build first (pnpm exec turbo run build --filter=@sds/sync)");
    api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 20 }],
    });
    fake = await api.listen();
    // The default interval: between two cycles the leader is idle for a minute, which is when it used to stop checking its lock.
    leader = spawnService(
      {
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: DEFAULT_API_KEY,
        DATABASE_URL: schemaDatabaseUrl(schema),
        SYNC_INTERVAL: "60",
      },
      [],
      { command: [process.execPath, builtMain] },
    );
    leaderUrl = await leader.url;
    await waitFor(async () => (await fetch(`${leaderUrl}/readyz`)).status === 200, 30_000);
    follower = await startServiceHarness({
      api,
      database: { kind: "postgres", connectionString: testDatabaseUrl, schema },
      replicaId: "in-process-follower",
      // Polls more often than the old leader looks at its lock (every 100 ms): it takes the lock first, so the handover is what is measured.
      followerPollMs: 20,
      logger: createLogger("info", { destination: { write: (line: string) => void followerLog.push(line) } }),
    });
  }, 60_000);
  afterAll(async () => {
    if (leader.child.exitCode === null && leader.child.signalCode === null) leader.child.kill("SIGKILL");
    await follower.close();
    await fake.close();
    await api.close();
    await dropSchema(schema);
  });

  it("never has both report sds_sync_leader 1 once the old leader noticed, which it does within its 1 s check, and each logs its role changes", async () => {
    const messages = (lines: readonly string[]) =>
      lines.filter((line) => line.startsWith("{")).map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages(leader.output)).toContain("this replica leads: it runs the sync cycles");
    expect(messages(followerLog)).toContainEqual(
      expect.stringMatching(/^this replica follows; another replica leads \(the last cycle was run by [^)]+\)$/),
    );
    expect([await leaderGauge(leaderUrl), await leaderGauge(follower.service.url)]).toEqual([1, 0]);

    const samples: { atMs: number; old: number; next: number }[] = [];
    let noticed: { atMs: number; index: number } | undefined;
    // The old leader checks every second, and once in a while that check comes right after the
    // lock was freed and takes it again, before the follower's poll: no handover, no double
    // leadership (asserted), and the session is terminated once more.
    for (let attempt = 1; attempt <= 5 && noticed === undefined; attempt += 1) {
      const terminatedAt = await terminateLeaderSession(schema);
      const first = samples.length;
      while (performance.now() - terminatedAt < (noticed === undefined ? 2000 : 4000)) {
        const [old, next] = await Promise.all([leaderGauge(leaderUrl), leaderGauge(follower.service.url)]);
        const atMs = performance.now() - terminatedAt;
        samples.push({ atMs, old, next });
        if (old === 0 && noticed === undefined) noticed = { atMs, index: samples.length - 1 };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (noticed === undefined)
        expect(
          samples.slice(first).every((sample) => sample.old === 1 && sample.next === 0),
          `attempt ${attempt}: the old leader kept leading alone`,
        ).toBe(true);
    }
    const bothLeading = samples.filter((sample) => sample.old === 1 && sample.next === 1);
    const summary = `noticed at ${noticed?.atMs.toFixed(0) ?? "never"} ms after the terminate; both 1 in ${bothLeading.length} of ${samples.length} samples, the last at ${bothLeading.at(-1)?.atMs.toFixed(0) ?? "-"} ms`;
    console.info(`leader session terminated: ${summary}`);
    // The check runs every second; a loaded machine gets half a second more.
    expect(noticed?.atMs ?? Infinity, summary).toBeLessThan(1500);
    for (const sample of samples.slice(noticed?.index))
      expect(sample.old === 1 && sample.next === 1, `${summary}; at ${sample.atMs.toFixed(0)} ms`).toBe(false);
    expect(samples.at(-1)).toMatchObject({ old: 0, next: 1 });

    expect(messages(leader.output)).toContainEqual(
      expect.stringMatching(/^this replica follows; another replica leads/),
    );
    expect(messages(followerLog)).toContain("this replica leads: it runs the sync cycles");
    const status = (await (await fetch(`${leaderUrl}/v1/sync/status`)).json()) as { replica: { leader: boolean } };
    expect(status.replica.leader).toBe(false);
    await waitFor(async () => (await runsOf(schema)).includes("in-process-follower"), 15_000);
  }, 30_000);
});

/** Terminates the PostgreSQL session that holds the schema's leadership lock; resolves when it did (performance.now()). */
async function terminateLeaderSession(schema: string): Promise<number> {
  const key = advisoryLockKey(schema);
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    // objsubid 2: the two-key form of the session lock (the migrations' transaction lock uses the same key).
    const holder = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 2",
      [key.classId, key.objectId],
    );
    expect(holder.rows).toHaveLength(1);
    const terminatedAt = performance.now();
    await client.query("SELECT pg_terminate_backend($1)", [holder.rows[0]?.pid]);
    return terminatedAt;
  } finally {
    await client.end();
  }
}

async function runsOf(schema: string): Promise<string[]> {
  const store = await openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 1 });
  try {
    return (await store.listRuns(1000)).map((run) => run.replicaId);
  } finally {
    await store.close();
  }
}
