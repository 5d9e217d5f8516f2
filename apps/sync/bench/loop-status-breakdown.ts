/**
 * Where the time of one `GET /v1/sync/status` goes with a large respondent loop: seeds the loop
 * file as loop-status.bench.ts does (or reuses SYNC_BENCH_DIRECTORY, a directory a previous run
 * kept), starts sds-sync in this process, and times each read the route makes on its own (best of
 * five), the loop section's JavaScript with its reads answered from memory, its serialisation by
 * field, and the whole route over HTTP. With SYNC_BENCH_CPU_PROFILE set, twenty status calls are
 * also profiled into that file (Chrome DevTools' format).
 *
 * Run: node --conditions=@sds/source apps/sync/bench/loop-status-breakdown.ts
 * (SYNC_BENCH_LOOP_ENTRIES, 5,000,000; SYNC_BENCH_SURVEYS, 5,000).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loopStatus } from "../src/loop/loop-status.ts";
import type { LoopStore } from "../src/loop/store/loop-store.ts";
import {
  BENCH_TOKEN as token,
  benchInventory,
  FIRST_SURVEY_ID,
  startBenchService,
  untilFirstCycle,
} from "./bench-service.ts";
import { seedLoopStore } from "./loop-seed.ts";

const entries = Number(process.env.SYNC_BENCH_LOOP_ENTRIES ?? 5_000_000);
const surveys = Number(process.env.SYNC_BENCH_SURVEYS ?? 5_000);
const firstId = FIRST_SURVEY_ID;

const api = benchInventory(surveys);
const fake = await api.listen();
const reused = process.env.SYNC_BENCH_DIRECTORY;
const directory = reused ?? mkdtempSync(join(tmpdir(), "sds-sync-loop-status-breakdown-"));
const syncStorePath = join(directory, "sds.db");
if (reused === undefined) {
  const seed = await seedLoopStore({
    syncStorePath,
    entries,
    firstSurveyId: firstId,
    surveys,
    respondents: 100_000,
    days: 30,
  });
  console.log(
    `seeded in ${seed.seconds.toFixed(1)} s: ${JSON.stringify(seed.rows)}; kept in ${directory} (SYNC_BENCH_DIRECTORY reuses it)`,
  );
}
const service = await startBenchService(fake.baseUrl, `sqlite:${syncStorePath}`, { SYNC_CONCURRENCY: "8" });

/** The best of five runs of `work`, printed; resolves with its last result. */
async function best<T>(name: string, work: () => Promise<T> | T): Promise<T> {
  let fastest = Number.POSITIVE_INFINITY;
  let result = await work();
  for (let round = 0; round < 5; round += 1) {
    const started = performance.now();
    result = await work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  console.log(`${name.padEnd(44)} ${fastest.toFixed(2).padStart(8)} ms`);
  return result;
}

try {
  await untilFirstCycle(service);
  const { store } = service;
  const outcomes = service.loop.store;
  await best("store.listRuns(20)", () => store.listRuns(20));
  await best("store.stats()", () => store.stats());
  await best("store.listCollections()", () => store.listCollections());
  await best("store.listQuarantine(20)", () => store.listQuarantine(20));
  await best("store.countByLanguage()", () => store.countByLanguage());
  await best("loop outcomes.conversion() (lifetime)", () => outcomes.conversion());
  const summary = await best("loop outcomes.conversionSummary(now, 500)", () =>
    outcomes.conversionSummary(new Date(), 500),
  );
  const counts = await best("loop outcomes.outcomeCounts()", () => outcomes.outcomeCounts());
  await best("loop outcomes.orphanCount()", () => outcomes.orphanCount());
  // The report is read again only when its version moves: a fresh version per call measures the read itself.
  let version = 0;
  const uncached = (store: LoopStore, overrides: Partial<LoopStore> = {}): LoopStore =>
    Object.assign(Object.create(store) as LoopStore, {
      conversionVersion: () => Promise.resolve(String((version += 1))),
      ...overrides,
    });
  await best("loopStatus() cached (the version did not move)", () => loopStatus(service.loop));
  const body = await best("loopStatus() with its reads", () =>
    loopStatus({ ...service.loop, store: uncached(outcomes) }),
  );
  const answered = uncached(outcomes, {
    conversionSummary: () => Promise.resolve(summary),
    outcomeCounts: () => Promise.resolve(counts),
    orphanCount: () => Promise.resolve(0),
  });
  await best("loopStatus() JavaScript only (reads answered)", () => loopStatus({ ...service.loop, store: answered }));
  await best("JSON.stringify(loop section)", () => JSON.stringify(body).length);
  for (const [field, value] of Object.entries(body))
    console.log(`  loop.${field}: ${JSON.stringify(value).length.toLocaleString("en")} bytes`);
  const headers = { authorization: `Bearer ${token}` };
  const statusUrl = `${service.url}/v1/sync/status`;
  const bytes = await best(
    "GET /v1/sync/status over HTTP",
    async () => (await (await fetch(statusUrl, { headers })).arrayBuffer()).byteLength,
  );
  console.log(`reply: ${bytes.toLocaleString("en")} bytes`);
  const profileFile = process.env.SYNC_BENCH_CPU_PROFILE;
  if (profileFile) {
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
    for (let call = 0; call < 20; call += 1) await (await fetch(statusUrl, { headers })).arrayBuffer();
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(profileFile, JSON.stringify(profile));
    session.disconnect();
    console.log(`profile of 20 status calls: ${profileFile}`);
  }
} finally {
  await service.stop();
  await fake.close();
  await api.close();
}
