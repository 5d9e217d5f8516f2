/**
 * A flood of session starts from one address against the quality gate
 * (`pnpm --filter @sds/sync bench:gate-flood`): sds-sync in this process against the fake, with
 * SYNC_MAX_STARTS_PER_IP_PER_HOUR at 100, on each store of SYNC_BENCH_STORES (`sqlite`; add
 * `postgres`), takes SYNC_BENCH_CONNECTIONS (50) clients POSTing `/v1/sessions` from one address
 * for SYNC_BENCH_SECONDS (10) — past the first 100, every start is refused `velocity-ip` —
 * while one more client reads `/healthz`. Goal (issue 29): `/healthz` p99 under 50 ms meanwhile.
 * Both load generators run in child processes; the machine's load is printed beside the figures.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl } from "../test/postgres.ts";
import { BENCH_TOKEN, benchInventory, startBenchService, untilFirstCycle } from "./bench-service.ts";
import type { GetLoadCommand, GetLoadReport } from "./get-load.ts";
import type { FloodCommand, FloodReport } from "./session-flood-load.ts";

const GOAL_P99_MS = 50;
const IP_LIMIT = 100;
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 50);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const stores = (process.env.SYNC_BENCH_STORES ?? "sqlite").split(",");

/** Runs one child load generator and resolves with its report. */
function runChild<Report>(script: string, command: FloodCommand | GetLoadCommand): Promise<Report> {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), { stdio: "inherit" });
  return new Promise<Report>((resolve, reject) => {
    child.once("message", (report) => {
      resolve(report as Report);
    });
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${code}`));
    });
    child.send(command);
  });
}

const api = benchInventory(200);
const fake = await api.listen();
let failed = false;

for (const store of stores) {
  let databaseUrl: string;
  let cleanUp: () => Promise<void>;
  if (store === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-gate-bench-"));
    databaseUrl = `sqlite:${join(directory, "sds.db")}`;
    cleanUp = () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    };
  } else {
    if (!(await postgresAvailable())) continue;
    const schema = freshSchemaName("sds_gate_bench");
    databaseUrl = schemaDatabaseUrl(schema);
    cleanUp = () => dropSchema(schema);
  }
  const service = await startBenchService(fake.baseUrl, databaseUrl, {
    SYNC_MAX_STARTS_PER_IP_PER_HOUR: String(IP_LIMIT),
  });
  try {
    await untilFirstCycle(service);
    const [flood, health] = await Promise.all([
      runChild<FloodReport>("session-flood-load.ts", {
        url: service.url,
        token: BENCH_TOKEN,
        ip: "203.0.113.66",
        connections,
        seconds,
      }),
      runChild<GetLoadReport>("get-load.ts", {
        url: `${service.url}/healthz`,
        headers: {},
        connections: 1,
        seconds,
      }),
    ]);
    const met = health.latencyMs.p99 < GOAL_P99_MS && health.non2xx === 0 && flood.started === IP_LIMIT;
    failed ||= !met;
    console.log(
      `[${store}] ${flood.requests} starts from one address in ${seconds} s at ${connections} connections (${flood.requestsPerSecond.toFixed(0)}/s): ` +
        `${flood.started} admitted, ${flood.refused} refused (velocity-ip), ${flood.errors} errors; ` +
        `/healthz meanwhile: ${health.requests} reads, p50 ${health.latencyMs.p50} ms, p99 ${health.latencyMs.p99} ms ` +
        `(goal < ${GOAL_P99_MS} ms, exactly ${IP_LIMIT} admitted: ${met ? "met" : "NOT met"}); load ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await service.stop();
    await cleanUp();
  }
}
await fake.close();
await api.close();
process.exitCode = failed ? 1 : 0;
