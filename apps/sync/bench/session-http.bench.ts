/**
 * Session steps over HTTP (`pnpm --filter @sds/sync bench:session-http`): sds-sync in this process
 * against the fake (SYNC_BENCH_SURVEYS live surveys, 2,000), on each store of SYNC_BENCH_STORES
 * (`sqlite,postgres`), and SYNC_BENCH_CONNECTIONS (50) clients walking respondents through
 * sessions for SYNC_BENCH_SECONDS (10) (session-walk.ts: start, answers, returns, reads of the
 * next step; every call is a step). Goal (issue 28): at least 1,000 steps/s on each store. The
 * clients run in a child process (session-walk-load.ts), so the CPU per step this process reports
 * is the service's alone; they still share the machine's cores with it. After the load, one
 * client walks alone in this process for SYNC_BENCH_CALIBRATION_SECONDS (3) so that each step's
 * PostgreSQL round trips (statements and transactions, counted at the driver) are its own: those
 * counts do not depend on the load. SYNC_BENCH_CPU_PROFILE=DIR profiles this process during the
 * load into DIR/session-http-<store>.cpuprofile (read it with profile-summary.ts).
 */
import { fork } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session as InspectorSession } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SUPPLIER_ID } from "@sds/testing";
import {
  dropSchema,
  freshSchemaName,
  postgresAvailable,
  schemaDatabaseUrl,
  testDatabaseUrl,
} from "../test/postgres.ts";
import { routingDataReport } from "../src/loop/loop-status.ts";
import type { SyncService } from "../src/service.ts";
import { BENCH_TOKEN, benchInventory, startBenchService, untilFirstCycle } from "./bench-service.ts";
import {
  backendCpuBetween,
  countPostgresRoundTrips,
  postgresBackendCpu,
  postgresRoundTrips,
  type RoundTripCount,
} from "./postgres-round-trips.ts";
import { walkSessions, type StepKind, type WalkTarget } from "./session-walk.ts";
import type { WalkLoadCommand, WalkLoadReport } from "./session-walk-load.ts";

const GOAL_STEPS_PER_SECOND = 1000;
const surveyCount = Number(process.env.SYNC_BENCH_SURVEYS ?? 2000);
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 50);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const stores = (process.env.SYNC_BENCH_STORES ?? "sqlite,postgres").split(",");
/** Seconds of one client walking alone first, to count each step kind's own round trips. */
const calibrationSeconds = Number(process.env.SYNC_BENCH_CALIBRATION_SECONDS ?? 3);

/** Round trips per step kind, one client at a time (each count that step's own). */
class RoundTripsByKind {
  readonly #trips = new Map<StepKind, { steps: number; statements: number; transactions: number }>();
  steps = 0;

  before(): RoundTripCount {
    return postgresRoundTrips();
  }

  after(kind: StepKind, _milliseconds: number, before: RoundTripCount): void {
    const after = postgresRoundTrips();
    const trips = this.#trips.get(kind) ?? { steps: 0, statements: 0, transactions: 0 };
    trips.steps++;
    trips.statements += after.statements - before.statements;
    trips.transactions += after.transactions - before.transactions;
    this.#trips.set(kind, trips);
    this.steps++;
  }

  toString(): string {
    return [...this.#trips]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([kind, trips]) =>
          `${kind} ${(trips.statements / trips.steps).toFixed(2)} (${(trips.transactions / trips.steps).toFixed(2)} tx, ${trips.steps}×)`,
      )
      .join(", ");
  }
}

/** Walks `connections` clients through sessions for `seconds` from a child process. */
async function loadFromChild(command: WalkLoadCommand): Promise<WalkLoadReport> {
  const child = fork(fileURLToPath(new URL("./session-walk-load.ts", import.meta.url)), [], {
    execArgv: ["--conditions=@sds/source"],
  });
  return new Promise<WalkLoadReport>((resolve, reject) => {
    child.once("message", (message: WalkLoadReport) => {
      resolve(message);
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the load process exited with ${String(code)}`));
    });
    child.send(command);
  });
}

countPostgresRoundTrips();

/**
 * With SYNC_BENCH_CPU_PROFILE set to a directory, profiles this process during the load only;
 * the function returned writes `<directory>/<label>.cpuprofile` (read it with profile-summary.ts).
 */
async function startProfiler(): Promise<((label: string) => Promise<void>) | undefined> {
  const directory = process.env.SYNC_BENCH_CPU_PROFILE;
  if (directory === undefined || directory === "") return undefined;
  const session = new InspectorSession();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return async (label) => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `${label}.cpuprofile`), JSON.stringify(profile));
  };
}
/** Waits (up to 5 minutes) until every survey's stats were read and no grouped survey waits for its groups. */
async function untilRoutingDataIn(service: SyncService): Promise<void> {
  const deadline = performance.now() + 300_000;
  for (;;) {
    const report = routingDataReport(service.loop);
    if (report.stats.surveys + report.stats.unavailable >= surveyCount && report.groups.pending === 0) return;
    if (performance.now() > deadline) throw new Error(`the routing data is not in: ${JSON.stringify(report)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const api = benchInventory(surveyCount);
const fake = await api.listen();
let failed = false;

for (const store of stores) {
  let databaseUrl: string;
  let cleanUp: () => Promise<void>;
  if (store === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-session-bench-"));
    databaseUrl = `sqlite:${join(directory, "sds.db")}`;
    cleanUp = () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    };
  } else {
    if (!(await postgresAvailable())) continue;
    const schema = freshSchemaName("sds_session_bench");
    databaseUrl = schemaDatabaseUrl(schema);
    cleanUp = () => dropSchema(schema);
  }
  const service = await startBenchService(fake.baseUrl, databaseUrl);
  try {
    await untilFirstCycle(service);
    while (service.sessions.catalogue.report().askable === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    // The leader writes the routing data (stats of every survey, groups, re-contact lists) after its
    // cycle: thousands of statements that would run during the load and be counted as the steps'.
    await untilRoutingDataIn(service);
    const target: WalkTarget = {
      url: service.url,
      outcomesUrl: service.outcomesUrl,
      token: BENCH_TOKEN,
      encryption: api.getAccount(DEFAULT_SUPPLIER_ID).OutgoingEncryption,
    };
    const backendsBefore = store === "postgres" ? await postgresBackendCpu(testDatabaseUrl) : new Map<number, number>();
    const profiler = await startProfiler();
    const cpuBefore = process.cpuUsage();
    const tripsBefore = postgresRoundTrips();
    const loaded = await loadFromChild({ target, connections, seconds, prefix: `load-${store}` });
    const tripsAfter = postgresRoundTrips();
    const cpu = process.cpuUsage(cpuBefore);
    await profiler?.(`session-http-${store}`);
    const backendSeconds =
      store === "postgres" ? backendCpuBetween(backendsBefore, await postgresBackendCpu(testDatabaseUrl)) : 0;
    // Then round trips per step kind, one step at a time (each count that step's own), on warm caches.
    const single = new RoundTripsByKind();
    await walkSessions(target, 1, performance.now() + calibrationSeconds * 1000, `single-${store}`, single);
    const steps = loaded.steps;
    const rate = steps / loaded.seconds;
    const met = rate >= GOAL_STEPS_PER_SECOND && loaded.errors === 0;
    failed ||= !met;
    console.log(
      `[${store}] ${steps} steps (${loaded.sessions} sessions) in ${loaded.seconds.toFixed(1)} s at ${connections} connections: ${rate.toFixed(0)} steps/s ` +
        `(goal >= ${GOAL_STEPS_PER_SECOND}: ${met ? "met" : "NOT met"}), ${loaded.errors} errors; ` +
        `p50 ${loaded.p50.toFixed(1)} ms, p99 ${loaded.p99.toFixed(1)} ms; load ${loadavg()[0]?.toFixed(1)}`,
    );
    const millisPerStep = (seconds: number) => ((seconds * 1000) / steps).toFixed(2);
    console.log(
      `[${store}] CPU per step: ${millisPerStep((cpu.user + cpu.system) / 1e6)} ms in this process (the service)` +
        (store === "postgres" ? `, ${millisPerStep(backendSeconds)} ms in its PostgreSQL backends` : "") +
        `; the clients ${millisPerStep(loaded.cpuSeconds)} ms in their own process`,
    );
    if (store === "postgres") {
      const perStep = (key: keyof RoundTripCount) => ((tripsAfter[key] - tripsBefore[key]) / steps).toFixed(2);
      console.log(
        `[${store}] round trips per step under load: ${perStep("statements")} statements, ${perStep("transactions")} transactions`,
      );
      console.log(`[${store}] one at a time (${single.steps} steps): ${String(single)}`);
    }
  } finally {
    await service.stop();
    await cleanUp();
  }
}
await fake.close();
await api.close();
if (failed && process.env.SYNC_BENCH_STRICT === "1") process.exitCode = 1;
