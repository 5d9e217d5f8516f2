/**
 * Where a large cycle's memory goes: runs one first cycle and one no-change cycle against a fake
 * (in its own process) and samples `process.memoryUsage()` every 20 ms, tagged with the phase
 * the cycle is in (listing, fetching children, commit), reporting each phase's peaks.
 *
 * Run: node --expose-gc --conditions=@sds/source apps/sync/bench/memory-phases.ts [surveys] [mode]
 * with mode `cycle` (default), `list-stream` (the client's stream only, ids kept), `list-client`
 * (listItemwise only) or `list-bare` (fetch + JSON.parse only). `PROBE_LIVE=0` skips the periodic
 * full GCs that measure the live heap (they also keep garbage down, so peaks are lower with them).
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";
import { createClient } from "@sds/client";
import { DEFAULT_API_KEY } from "@sds/testing";
import { pino } from "pino";
import type { FakeReply } from "./fake-process.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { createClientUpstream } from "../src/upstream/client-upstream.ts";
import { runCycle } from "../src/cycle/run-cycle.ts";
import { SurveyIndex } from "../src/survey-index/survey-index.ts";
import type { Upstream } from "../src/upstream/upstream.ts";

const surveys = Number(process.argv[2] ?? "100000");
const mode = process.argv[3] ?? "cycle";
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

const fake = fork(fileURLToPath(new URL("./fake-process.ts", import.meta.url)), [String(surveys)], {
  execArgv: ["--conditions=@sds/source"],
});
const ready = await new Promise<FakeReply>((resolve) => fake.once("message", resolve));
if (ready.type !== "ready") throw new Error("the fake did not start");
const baseUrl = ready.baseUrl;

interface Peak {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** heapUsed right after a full GC: the live heap, garbage excluded. */
  live: number;
}
const peaks = new Map<string, Peak>();
/** The largest size each V8 heap space reached (reserved, not only used). */
const spacePeaks = new Map<string, number>();
let phase = "start";
const sample = () => {
  const usage = process.memoryUsage();
  const peak = peaks.get(phase) ?? { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, live: 0 };
  for (const key of ["rss", "heapUsed", "heapTotal", "external", "arrayBuffers"] as const)
    peak[key] = Math.max(peak[key], usage[key]);
  peaks.set(phase, peak);
  for (const space of getHeapSpaceStatistics())
    spacePeaks.set(space.space_name, Math.max(spacePeaks.get(space.space_name) ?? 0, space.space_size));
};
const enter = (next: string) => {
  sample();
  phase = next;
  sample();
};
const timer = setInterval(sample, 20);
const gc = (globalThis as { gc?: () => void }).gc;
// A full GC now and then shows the live heap of each phase (it perturbs timing, not what is live).
const liveTimer = setInterval(() => {
  if (!gc || process.env.PROBE_LIVE === "0") return;
  gc();
  const peak = peaks.get(phase);
  if (peak) peak.live = Math.max(peak.live, process.memoryUsage().heapUsed);
}, 500);
const retained = (label: string) => {
  gc?.();
  const usage = process.memoryUsage();
  console.log(
    `after GC, ${label}: heapUsed ${mb(usage.heapUsed)} MB, external ${mb(usage.external)} MB, rss ${mb(usage.rss)} MB`,
  );
};

if (mode === "list-bare") {
  enter("list (bare fetch + JSON.parse)");
  const response = await fetch(`${baseUrl}/surveys`, { headers: { "EQ-PARTNER-ACCESS-KEY": DEFAULT_API_KEY } });
  const body = JSON.parse(await response.text()) as { Surveys: unknown[] };
  enter("done");
  retained(`holding ${body.Surveys.length} parsed surveys`);
} else if (mode === "list-client") {
  const sds = createClient({ baseUrl, apiKey: DEFAULT_API_KEY, retry: 0 });
  enter("list (client listItemwise)");
  const list = await sds.surveys.listItemwise();
  enter("done");
  retained(`holding ${list.data.Surveys.length} validated surveys`);
} else if (mode === "list-stream") {
  const upstream = createClientUpstream({ baseUrl, apiKey: DEFAULT_API_KEY, retry: 0 });
  enter("list (client stream, ids kept)");
  const ids: number[] = [];
  for await (const { survey } of upstream.liveSurveys(new AbortController().signal))
    if (survey) ids.push(survey.SurveyId);
  enter("done");
  retained(`holding ${ids.length} survey ids`);
} else {
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-probe-"));
  const store = await openSqliteStore({ path: join(directory, "sds.db") });
  const inner = createClientUpstream({ baseUrl, apiKey: DEFAULT_API_KEY, maxConcurrency: 17, retry: 0 });
  let cycle = 0;
  const upstream: Upstream = {
    async *liveSurveys(signal) {
      cycle += 1;
      enter(`${cycle}: list streaming, no fetch yet`);
      yield* inner.liveSurveys(signal);
      enter(`${cycle}: list read, fetches ending`);
    },
    qualifications(id, signal) {
      if (phase === `${cycle}: list streaming, no fetch yet`) enter(`${cycle}: list streaming + fetches + writes`);
      return inner.qualifications(id, signal);
    },
    quotas: (id, signal) => inner.quotas(id, signal),
    collection: (name, signal) => inner.collection(name, signal),
  };
  const phasedStore: SyncStore = Object.create(store) as SyncStore;
  Object.assign(phasedStore, {
    beginCycle: async (at: Date) => {
      const transaction = await store.beginCycle(at);
      return {
        write: (batch: Parameters<typeof transaction.write>[0]) => transaction.write(batch),
        rollback: () => transaction.rollback(),
        commit: async (run: Parameters<typeof transaction.commit>[0]) => {
          enter(`${cycle}: commit`);
          const outcome = await transaction.commit(run);
          enter(`${cycle}: after commit`);
          return outcome;
        },
      };
    },
    loadSurveyStates: () => store.loadSurveyStates(),
    recordRun: (run: Parameters<SyncStore["recordRun"]>[0]) => store.recordRun(run),
  });
  const index = new SurveyIndex();
  const context = {
    store: phasedStore,
    upstream,
    concurrency: 16,
    replicaId: "probe",
    logger: pino({ level: "silent" }),
    requestCount: () => 0,
  };
  const first = await runCycle(context, index, "manual", new AbortController().signal);
  if (first.status !== "succeeded") throw new Error(first.error ?? "cycle failed");
  retained("first cycle done, index held");
  if (process.env.PROBE_SNAPSHOT) console.log("heap snapshot:", writeHeapSnapshot(process.env.PROBE_SNAPSHOT));
  const second = await runCycle(context, index, "manual", new AbortController().signal);
  if (second.status !== "succeeded") throw new Error(second.error ?? "cycle failed");
  enter("done");
  retained("no-change cycle done");
  await store.close();
  rmSync(directory, { recursive: true, force: true });
}
clearInterval(timer);
clearInterval(liveTimer);
for (const [name, peak] of peaks) {
  console.log(
    `${name.padEnd(32)} rss ${mb(peak.rss)} MB, heapUsed ${mb(peak.heapUsed)} (live ${mb(peak.live)}), heapTotal ${mb(peak.heapTotal)}, external ${mb(peak.external)}, arrayBuffers ${mb(peak.arrayBuffers)}`,
  );
}
console.log(
  `V8 heap spaces at their largest: ${[...spacePeaks]
    .filter(([, size]) => size >= 1024 * 1024)
    .map(([name, size]) => `${name} ${mb(size)} MB`)
    .join(", ")}`,
);
console.log(`maxRSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
fake.disconnect();
