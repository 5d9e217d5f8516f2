/**
 * `POST /v1/match` over HTTP (`pnpm --filter @sds/sync bench:match`): sds-sync in this process
 * (SQLite store, bearer token on) after syncing SYNC_BENCH_SURVEYS (10,000) live surveys from the
 * fake, every one with qualifications from the fake's catalogue and quotas with remaining counts
 * (some closed); autocannon in a child process (SYNC_BENCH_CONNECTIONS, 50, for
 * SYNC_BENCH_SECONDS, 10), cycling through 500 respondents drawn from the same catalogue, each
 * with a language and a device. Target: at least 2,000 requests per second. The figures are
 * written to SYNC_BENCH_JSON when set.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MatchBody } from "@sds/sync-client";
import { toMatchRequest } from "../src/loop/match-routes.ts";
import {
  BENCH_TOKEN,
  benchInventory,
  lcgPick,
  matchBodies,
  startBenchService,
  untilFirstCycle,
} from "./bench-service.ts";
import type { LoadCommand, LoadReport } from "./match-load.ts";

const surveys = Number(process.env.SYNC_BENCH_SURVEYS ?? 10_000);
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 50);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const token = BENCH_TOKEN;

const api = benchInventory(surveys);
const fake = await api.listen();
const directory = mkdtempSync(join(tmpdir(), "sds-sync-match-bench-"));
const service = await startBenchService(fake.baseUrl, `sqlite:${join(directory, "sds.db")}`);

try {
  const syncedSeconds = await untilFirstCycle(service);
  console.log(`synced ${service.loop.liveMatcher.matcher.size} live surveys in ${syncedSeconds.toFixed(1)} s`);

  // Respondents from the catalogue: one answer per question with options (ages as numbers, so range codes apply).
  const bodies = matchBodies(lcgPick(12_345));
  // In-process cost of one request's work, by step, without HTTP: what the server's CPU spends per request.
  const rounds = 5000;
  const step = { parseMs: 0, matchMs: 0, serialiseMs: 0, eligible: 0 };
  for (let index = 0; index < rounds; index++) {
    const body = bodies[index % bodies.length] ?? "{}";
    const t0 = performance.now();
    const request = toMatchRequest(MatchBody.parse(JSON.parse(body)), new Date());
    const t1 = performance.now();
    const result = service.loop.liveMatcher.matcher.match(request);
    const t2 = performance.now();
    // The records come from the matcher's bounded cache, else from the store (SQLite here).
    const text = `{"surveys":[${(await service.loop.liveMatcher.surveyRecords(result.surveyIds)).join(",")}],"eligible":${result.eligible}}`;
    if (text.length === 0) throw new Error("unreachable: keeps the serialisation from being optimised away");
    const t3 = performance.now();
    step.parseMs += t1 - t0;
    step.matchMs += t2 - t1;
    step.serialiseMs += t3 - t2;
    step.eligible += result.eligible;
  }
  const inProcess = {
    parseMs: step.parseMs / rounds,
    matchMs: step.matchMs / rounds,
    serialiseMs: step.serialiseMs / rounds,
    meanEligible: step.eligible / rounds,
  };
  console.log(
    `in process, per respondent: parse+validate ${inProcess.parseMs.toFixed(3)} ms, match ${inProcess.matchMs.toFixed(3)} ms, records + serialise ${inProcess.serialiseMs.toFixed(3)} ms; ` +
      `${inProcess.meanEligible.toFixed(1)} eligible surveys on average`,
  );

  const cpuBefore = process.cpuUsage();
  const child = fork(fileURLToPath(new URL("./match-load.ts", import.meta.url)), [], {
    execArgv: ["--conditions=@sds/source"],
  });
  const report = await new Promise<LoadReport>((resolve, reject) => {
    child.once("message", (message: LoadReport) => {
      resolve(message);
    });
    child.once("error", reject);
    const command: LoadCommand = { url: `${service.url}/v1/match`, token, bodies, connections, seconds };
    child.send(command);
  });
  const cpu = process.cpuUsage(cpuBefore);
  // Under a shared, loaded machine req/s understates capacity: the service's own CPU per request does not.
  const cpuMsPerRequest = (cpu.user + cpu.system) / 1000 / report.requests;
  const figures = {
    surveys: service.loop.liveMatcher.matcher.size,
    connections,
    seconds,
    node: process.version,
    inProcess,
    cpuMsPerRequest,
    requestsPerCpuSecond: 1000 / cpuMsPerRequest,
    ...report,
  };
  console.log(
    `POST /v1/match, ${connections} connections, ${seconds} s: ${Math.round(report.requestsPerSecond)} req/s (target >= 2000), ` +
      `latency p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms, max ${report.latencyMs.max} ms; ${report.requests} requests, ${report.non2xx} non-2xx, ${report.errors} errors; ` +
      `the service spent ${cpuMsPerRequest.toFixed(3)} ms of CPU per request (${Math.round(1000 / cpuMsPerRequest)} requests per CPU-second)`,
  );
  if (process.env.SYNC_BENCH_JSON) writeFileSync(process.env.SYNC_BENCH_JSON, `${JSON.stringify(figures, null, 2)}\n`);
} finally {
  await service.stop();
  await fake.close();
  await api.close();
  rmSync(directory, { recursive: true, force: true });
}
