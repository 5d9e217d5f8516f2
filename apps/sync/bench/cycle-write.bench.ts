/**
 * The inventory store's cycle write, without upstream or HTTP (`pnpm --filter @sds/sync
 * bench:cycle-write`): what a first sync and a full update write into a store, in the cycle's
 * batches (`CYCLE_BATCH_SIZE`, 200 surveys), one transaction each. On each store of
 * SYNC_BENCH_STORES (`sqlite,postgres`; PostgreSQL at SDS_TEST_DATABASE_URL in a fresh schema,
 * skipped when unreachable), SYNC_BENCH_RUNS (3) fresh stores each get a first cycle of
 * SYNC_BENCH_SURVEYS (10,000) surveys with 6 qualifications and 2 quotas each (an `opened`
 * change per survey), then a cycle that rewrites every survey and replaces its children (an
 * `updated` change each). Shown: the median run's surveys per second and this process's CPU per
 * survey (`process.cpuUsage`: on a shared machine compare CPU, not the rates beside it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CYCLE_BATCH_SIZE } from "../src/cycle/cycle-batcher.ts";
import { openStore } from "../src/inventory-store/open-store.ts";
import type { CycleBatch, SyncStore } from "../src/inventory-store/store.ts";
import type { DatabaseConfig } from "../src/database/database-config.ts";
import { qualificationsOf, quotasOf, runAt, sampleSurvey, surveyWrite } from "../test/store-fixtures.ts";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl } from "../test/postgres.ts";

const stores = (process.env.SYNC_BENCH_STORES ?? "sqlite,postgres").split(",").map((store) => store.trim());
const surveys = Number(process.env.SYNC_BENCH_SURVEYS ?? 10_000);
const runs = Number(process.env.SYNC_BENCH_RUNS ?? 3);

/** One cycle's batches: `surveys` surveys from id 1, their children, a change of `type` each. */
function cycleBatches(type: "opened" | "updated", round: number): CycleBatch[] {
  const batches: CycleBatch[] = [];
  for (let start = 1; start <= surveys; start += CYCLE_BATCH_SIZE) {
    const ids = Array.from({ length: Math.min(CYCLE_BATCH_SIZE, surveys - start + 1) }, (_, index) => start + index);
    batches.push({
      surveys: ids.map((id) =>
        surveyWrite(sampleSurvey(id, { Name: `Survey ${id} round ${round}`, Has_Quotas: true }), { quotaCount: 2 }),
      ),
      closedSurveyIds: [],
      qualifications: ids.map((id) => qualificationsOf(id, 6)),
      quotas: ids.map((id) => quotasOf(id, 2)),
      changes: ids.map((surveyId) => ({ type, surveyId })),
      quarantine: [],
      resolvedQuarantineKeys: [],
    });
  }
  return batches;
}

/** Writes one cycle's batches in one transaction: wall and CPU milliseconds. */
async function writeCycle(store: SyncStore, batches: readonly CycleBatch[]) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const at = new Date();
  const transaction = await store.beginCycle(at);
  for (const batch of batches) await transaction.write(batch);
  await transaction.commit(runAt(at));
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function openFresh(kind: string): Promise<{ store: SyncStore; dispose: () => Promise<void> }> {
  let database: DatabaseConfig;
  let dispose: () => Promise<void>;
  if (kind === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "sds-cycle-bench-"));
    database = { kind: "sqlite", path: join(directory, "sds.db") };
    dispose = () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    };
  } else {
    const schema = freshSchemaName("sds_cycle_bench");
    database = { kind: "postgres", connectionString: schemaDatabaseUrl(schema), schema };
    dispose = () => dropSchema(schema);
  }
  const store = await openStore(database);
  await store.leadership.acquire();
  return {
    store,
    dispose: async () => {
      await store.leadership.release();
      await store.close();
      await dispose();
    },
  };
}

const median = <T>(values: readonly T[], key: (value: T) => number): T =>
  [...values].sort((a, b) => key(a) - key(b))[Math.floor(values.length / 2)] as T;

const first = cycleBatches("opened", 0);
const update = cycleBatches("updated", 1);
console.log(
  `cycle write: ${surveys} surveys in batches of ${CYCLE_BATCH_SIZE}, 6 qualifications and 2 quotas each; ${runs} runs; load ${loadavg()
    .map((load) => load.toFixed(1))
    .join(" ")}`,
);
for (const kind of stores) {
  if (kind === "postgres" && !(await postgresAvailable())) {
    console.log("postgres: unreachable, skipped");
    continue;
  }
  const measured: { first: { ms: number; cpuMs: number }; update: { ms: number; cpuMs: number } }[] = [];
  for (let run = 0; run < runs; run += 1) {
    const { store, dispose } = await openFresh(kind);
    try {
      measured.push({ first: await writeCycle(store, first), update: await writeCycle(store, update) });
    } finally {
      await dispose();
    }
  }
  for (const phase of ["first", "update"] as const) {
    const middle = median(measured, (run) => run[phase].ms)[phase];
    console.log(
      `${kind} ${phase === "first" ? "first cycle " : "update cycle"}: ${Math.round((surveys / middle.ms) * 1000)} surveys/s (${middle.ms.toFixed(0)} ms), CPU ${((middle.cpuMs / surveys) * 1000).toFixed(0)} µs/survey; runs ${measured.map((run) => run[phase].ms.toFixed(0)).join(", ")} ms`,
    );
  }
}
