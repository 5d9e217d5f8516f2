/**
 * `GET /v1/sync/status` with a large respondent loop (`pnpm --filter @sds/sync bench:loop-status`,
 * issue 20 item 10). The loop's SQLite file is seeded (loop-seed.ts, in a child process) with
 * SYNC_BENCH_LOOP_ENTRIES (5,000,000) recorded entries over the last 30 days, spread over
 * SYNC_BENCH_SURVEYS (5,000) live surveys and 100,000 respondents, about 30% with an outcome,
 * with the feed and every kept count consistent with them. Then sds-sync runs in this process
 * (SQLite, bearer token on, LOG_LEVEL silent) against the fake, and after its first cycle:
 * (a) SYNC_BENCH_STATUS_CALLS (200) status calls one after another; (b) `POST /v1/match` under
 * autocannon (SYNC_BENCH_CONNECTIONS, 10, for SYNC_BENCH_SECONDS, 10) while SYNC_BENCH_TABS (20)
 * status-page tabs each poll the status every 5 s; the clients run in child processes. The
 * event loop's delay is recorded in this process over (a) and (b) with
 * `monitorEventLoopDelay({ resolution: 10 })`. Goals: status p99 ≤ 50 ms, match p99 ≤ 20 ms while
 * the page polls, no event-loop delay over 50 ms. The figures are written to SYNC_BENCH_JSON when
 * set.
 */
import { fork } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import {
  BENCH_TOKEN,
  benchInventory,
  FIRST_SURVEY_ID,
  lcgPick,
  matchBodies,
  startBenchService,
  untilFirstCycle,
} from "./bench-service.ts";
import type { SeedCommand, SeedReport } from "./loop-seed.ts";
import type { LoadCommand, LoadReport } from "./match-load.ts";
import type { StatusCommand, StatusReport } from "./status-client.ts";

const entries = Number(process.env.SYNC_BENCH_LOOP_ENTRIES ?? 5_000_000);
const surveys = Number(process.env.SYNC_BENCH_SURVEYS ?? 5_000);
const statusCalls = Number(process.env.SYNC_BENCH_STATUS_CALLS ?? 200);
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 10);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const tabs = Number(process.env.SYNC_BENCH_TABS ?? 20);
const goals = { statusP99Ms: 50, matchP99Ms: 20, eventLoopMaxMs: 50 };
const pollIntervalMs = 5000;
const resolutionMs = 10;
const token = BENCH_TOKEN;
const firstId = FIRST_SURVEY_ID;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** Runs one of this folder's child scripts with one command and resolves with its one reply. */
function inChild<Reply>(script: string, command: SeedCommand | StatusCommand | LoadCommand): Promise<Reply> {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), [], { execArgv: ["--conditions=@sds/source"] });
  return new Promise<Reply>((resolve, reject) => {
    child.once("message", (reply: Reply) => {
      resolve(reply);
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${String(code)}`));
    });
    child.send(command);
  });
}

/** A histogram of event-loop delays in ms (raw: each sample includes the 10 ms resolution). */
function delays(histogram: ReturnType<typeof monitorEventLoopDelay>) {
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  return {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    samples: histogram.count,
  };
}

const api = benchInventory(surveys);
const fake = await api.listen();
const directory = mkdtempSync(join(tmpdir(), "sds-sync-loop-status-bench-"));
const syncStorePath = join(directory, "sds.db");
const loopFile = join(directory, "sds.loop.db");

console.log(
  `load average before seeding: ${loadavg()
    .map((load) => load.toFixed(2))
    .join(", ")} (${process.env.SYNC_BENCH_NOTE ?? "2 shared cores"})`,
);
const seed = await inChild<SeedReport>("./loop-seed.ts", {
  syncStorePath,
  entries,
  firstSurveyId: firstId,
  surveys,
  respondents: 100_000,
  days: 30,
});
console.log(
  `seeded ${seed.rows.loop_entries?.toLocaleString("en")} entries (${seed.rows.loop_outcomes?.toLocaleString("en")} outcomes, ${seed.rows.loop_survey_hours?.toLocaleString("en")} hourly rows, ` +
    `${seed.rows.loop_respondents?.toLocaleString("en")} respondents) in ${seed.seconds.toFixed(1)} s ` +
    `(${Object.entries(seed.phases)
      .map(([name, phaseSeconds]) => `${name} ${phaseSeconds.toFixed(1)} s`)
      .join(", ")}); loop file ${mb(seed.fileBytes)} MB`,
);
const rssFakeOnlyMb = mb(process.memoryUsage().rss);

const service = await startBenchService(fake.baseUrl, `sqlite:${syncStorePath}`);

try {
  const syncedSeconds = await untilFirstCycle(service);
  console.log(`synced ${service.loop.liveMatcher.matcher.size} live surveys in ${syncedSeconds.toFixed(1)} s`);

  // Respondents from the catalogue, as match-http.bench.ts draws them.
  const bodies = matchBodies(lcgPick(12_345));

  const statusUrl = `${service.url}/v1/sync/status`;
  // Warm-up (JIT, page cache), not measured.
  await inChild<StatusReport>("./status-client.ts", { mode: "sequential", url: statusUrl, token, calls: 10 });

  const whole = monitorEventLoopDelay({ resolution: resolutionMs });
  const sequentialLoop = monitorEventLoopDelay({ resolution: resolutionMs });
  whole.enable();
  sequentialLoop.enable();
  const sequential = await inChild<StatusReport>("./status-client.ts", {
    mode: "sequential",
    url: statusUrl,
    token,
    calls: statusCalls,
  });
  sequentialLoop.disable();

  const pollingLoop = monitorEventLoopDelay({ resolution: resolutionMs });
  pollingLoop.enable();
  const [matchLoad, polling] = await Promise.all([
    inChild<LoadReport>("./match-load.ts", { url: `${service.url}/v1/match`, token, bodies, connections, seconds }),
    inChild<StatusReport>("./status-client.ts", {
      mode: "tabs",
      url: statusUrl,
      token,
      tabs,
      intervalMs: pollIntervalMs,
      seconds,
    }),
  ]);
  pollingLoop.disable();
  whole.disable();

  const eventLoop = delays(whole);
  const loopFileBytes =
    statSync(loopFile).size + (existsSync(`${loopFile}-wal`) ? statSync(`${loopFile}-wal`).size : 0);
  const memory = {
    rssMb: mb(process.memoryUsage().rss),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    rssFakeOnlyMb,
  };
  const rows = [
    {
      figure: `GET /v1/sync/status p99, ${sequential.calls} sequential calls`,
      value: sequential.latencyMs.p99,
      goal: goals.statusP99Ms,
    },
    {
      figure: `POST /v1/match p99, ${connections} connections, ${tabs} tabs polling`,
      value: matchLoad.latencyMs.p99,
      goal: goals.matchP99Ms,
    },
    { figure: "event-loop delay max over (a) and (b)", value: eventLoop.max, goal: goals.eventLoopMaxMs },
  ];
  const verdicts = rows.map((row) => ({ ...row, pass: row.value <= row.goal }));
  const figures = {
    node: process.version,
    loadAverage: loadavg(),
    entries,
    surveys: service.loop.liveMatcher.matcher.size,
    seed,
    status: { sequential, polling, tabs, pollIntervalMs },
    match: { connections, seconds, ...matchLoad },
    eventLoopMs: {
      resolution: resolutionMs,
      whole: eventLoop,
      sequential: delays(sequentialLoop),
      polling: delays(pollingLoop),
    },
    memory,
    loopFileMb: mb(loopFileBytes),
    verdicts,
  };

  console.log(
    `(a) GET /v1/sync/status x${sequential.calls}: p50 ${sequential.latencyMs.p50} ms, p99 ${sequential.latencyMs.p99} ms, max ${sequential.latencyMs.max} ms; ` +
      `${sequential.failures} failures; reply ${Math.round(sequential.bytes / 1024)} KiB`,
  );
  console.log(
    `(b) POST /v1/match, ${connections} connections, ${seconds} s: ${Math.round(matchLoad.requestsPerSecond)} req/s, p50 ${matchLoad.latencyMs.p50} ms, p99 ${matchLoad.latencyMs.p99} ms, ` +
      `max ${matchLoad.latencyMs.max} ms, ${matchLoad.non2xx} non-2xx, ${matchLoad.errors} errors; meanwhile ${tabs} tabs polled the status ${polling.calls} times: ` +
      `p50 ${polling.latencyMs.p50} ms, p99 ${polling.latencyMs.p99} ms, max ${polling.latencyMs.max} ms`,
  );
  console.log(
    `(c) event-loop delay (resolution ${resolutionMs} ms, included): whole p50 ${eventLoop.p50} ms, p99 ${eventLoop.p99} ms, max ${eventLoop.max} ms; ` +
      `during (a) max ${figures.eventLoopMs.sequential.max} ms, during (b) max ${figures.eventLoopMs.polling.max} ms`,
  );
  console.log(
    `memory: RSS ${memory.rssMb} MB now, ${memory.maxRssMb} MB peak (the fake alone: ${rssFakeOnlyMb} MB before the service started); loop file ${figures.loopFileMb} MB`,
  );
  console.table(
    verdicts.map(({ figure, value, goal, pass }) => ({
      figure,
      ms: value,
      "goal ms": `<= ${goal}`,
      result: pass ? "PASS" : "MISS",
    })),
  );
  if (process.env.SYNC_BENCH_JSON) writeFileSync(process.env.SYNC_BENCH_JSON, `${JSON.stringify(figures, null, 2)}\n`);
} finally {
  await service.stop();
  await fake.close();
  await api.close();
  rmSync(directory, { recursive: true, force: true });
}
