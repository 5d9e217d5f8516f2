/**
 * Session steps over HTTP (`pnpm --filter @sds/sync bench:session-http`): sds-sync in this process
 * against the fake (SYNC_BENCH_SURVEYS live surveys, 2,000), on each store of SYNC_BENCH_STORES
 * (`sqlite,postgres`), and SYNC_BENCH_CONNECTIONS (50) clients walking respondents through
 * sessions for SYNC_BENCH_SECONDS (10): `POST /v1/sessions`, the answers to each question asked,
 * the return from each survey offered (a terminate, so the session re-routes) and the read of
 * the next step, until the session is done. Every one of those calls is a step. Goal (issue 28):
 * at least 1,000 steps/s on each store. The clients share the service's process and its two
 * cores: the figure is a floor. After the load, one client walks alone for
 * SYNC_BENCH_CALIBRATION_SECONDS (3) so that each step's PostgreSQL round trips (statements and
 * transactions, counted at the driver) are its own: those counts do not depend on the load.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { encryptionSigning, signUrl } from "@sds/routing";
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

const GOAL_STEPS_PER_SECOND = 1000;
const surveyCount = Number(process.env.SYNC_BENCH_SURVEYS ?? 2000);
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 50);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const stores = (process.env.SYNC_BENCH_STORES ?? "sqlite,postgres").split(",");
/** Seconds of one client walking alone first, to count each step kind's own round trips. */
const calibrationSeconds = Number(process.env.SYNC_BENCH_CALIBRATION_SECONDS ?? 3);

/** A step by what it did: `start`, `return`, and `answer` or `read` with the kind of step it answered (`answer→survey`). */
type StepKind = string;

/** What one walk measured: latencies, and (one client at a time) round trips per step kind. */
class StepTally {
  sessions = 0;
  errors = 0;
  seconds = 0;
  readonly #latencies: number[] = [];
  readonly #trips = new Map<StepKind, { steps: number; statements: number; transactions: number }>();

  add(kind: StepKind, milliseconds: number, before: RoundTripCount, alone: boolean): void {
    this.#latencies.push(milliseconds);
    if (!alone) return;
    const after = postgresRoundTrips();
    const trips = this.#trips.get(kind) ?? { steps: 0, statements: 0, transactions: 0 };
    trips.steps++;
    trips.statements += after.statements - before.statements;
    trips.transactions += after.transactions - before.transactions;
    this.#trips.set(kind, trips);
  }

  steps(): number {
    return this.#latencies.length;
  }

  percentile(fraction: number): number {
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
  }

  roundTripsByKind(): string {
    return [...this.#trips]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([kind, trips]) =>
          `${kind} ${(trips.statements / trips.steps).toFixed(2)} (${(trips.transactions / trips.steps).toFixed(2)} tx, ${trips.steps}×)`,
      )
      .join(", ");
  }
}

interface Step {
  readonly kind: string;
  readonly qualificationId?: number;
  readonly type?: string;
  readonly options?: { code: string }[];
  readonly token?: string;
}
interface Session {
  readonly id: string;
  readonly next: Step;
}

countPostgresRoundTrips();
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
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" };
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
    const signing = encryptionSigning(api.getAccount(DEFAULT_SUPPLIER_ID).OutgoingEncryption);
    const returnUrl = (token: string) => {
      const url = `${service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(token)}`;
      return signing === undefined ? url : signUrl(url, signing.key, signing.scheme);
    };
    const walk = async (workers: number, until: number, prefix: string): Promise<StepTally> => {
      const tally = new StepTally();
      const call = async (kind: StepKind, path: string, body?: unknown): Promise<Session | undefined> => {
        const before = postgresRoundTrips();
        const started = performance.now();
        const response = await fetch(`${service.url}${path}`, {
          headers,
          ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
        });
        const text = await response.text();
        const elapsed = performance.now() - started;
        if (!response.ok) {
          tally.add(kind, elapsed, before, workers === 1);
          if (tally.errors++ < 3) console.error(`${path}: ${response.status} ${text.slice(0, 200)}`);
          return undefined;
        }
        const session = JSON.parse(text) as Session;
        tally.add(kind === "start" ? kind : `${kind}→${session.next.kind}`, elapsed, before, workers === 1);
        return session;
      };
      const worker = async (worker: number): Promise<void> => {
        for (let index = 0; performance.now() < until; index++) {
          let session = await call("start", "/v1/sessions", {
            uid: `bench-${prefix}-${store}-${worker}-${index}`,
            languageId: 3,
          });
          tally.sessions++;
          for (let turn = 0; session !== undefined && turn < 12 && performance.now() < until; turn++) {
            const next: Step = session.next;
            if (next.kind === "question") {
              const answer =
                next.type === "numeric" ? ["34"] : next.type === "text" ? ["10001"] : [next.options?.[0]?.code ?? "1"];
              session = await call("answer", `/v1/sessions/${session.id}/answers`, {
                answers: { [String(next.qualificationId)]: answer },
              });
            } else if (next.kind === "survey") {
              const before = postgresRoundTrips();
              const started = performance.now();
              const back = await fetch(returnUrl(next.token ?? ""), { redirect: "manual" });
              await back.arrayBuffer();
              tally.add("return", performance.now() - started, before, workers === 1);
              if (back.status !== 303 && tally.errors++ < 3) console.error(`return: ${back.status}`);
              session = await call("read", `/v1/sessions/${session.id}`);
            } else break;
          }
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
      tally.seconds = (performance.now() - started) / 1000;
      return tally;
    };
    const backendsBefore = store === "postgres" ? await postgresBackendCpu(testDatabaseUrl) : new Map<number, number>();
    const cpuBefore = process.cpuUsage();
    const tripsBefore = postgresRoundTrips();
    const loaded = await walk(connections, performance.now() + seconds * 1000, "load");
    const tripsAfter = postgresRoundTrips();
    const cpu = process.cpuUsage(cpuBefore);
    const backendSeconds =
      store === "postgres" ? backendCpuBetween(backendsBefore, await postgresBackendCpu(testDatabaseUrl)) : 0;
    // Then round trips per step kind, one step at a time (each count that step's own), on warm caches.
    const single = await walk(1, performance.now() + calibrationSeconds * 1000, "single");
    const steps = loaded.steps();
    const rate = steps / loaded.seconds;
    const met = rate >= GOAL_STEPS_PER_SECOND && loaded.errors === 0;
    failed ||= !met;
    console.log(
      `[${store}] ${steps} steps (${loaded.sessions} sessions) in ${loaded.seconds.toFixed(1)} s at ${connections} connections: ${rate.toFixed(0)} steps/s ` +
        `(goal >= ${GOAL_STEPS_PER_SECOND}: ${met ? "met" : "NOT met"}), ${loaded.errors} errors; ` +
        `p50 ${loaded.percentile(0.5).toFixed(1)} ms, p99 ${loaded.percentile(0.99).toFixed(1)} ms; load ${loadavg()[0]?.toFixed(1)}`,
    );
    const millisPerStep = (seconds: number) => ((seconds * 1000) / steps).toFixed(2);
    console.log(
      `[${store}] CPU per step: ${millisPerStep((cpu.user + cpu.system) / 1e6)} ms in this process (service and clients)` +
        (store === "postgres" ? `, ${millisPerStep(backendSeconds)} ms in its PostgreSQL backends` : ""),
    );
    if (store === "postgres") {
      const perStep = (key: keyof RoundTripCount) => ((tripsAfter[key] - tripsBefore[key]) / steps).toFixed(2);
      console.log(
        `[${store}] round trips per step under load: ${perStep("statements")} statements, ${perStep("transactions")} transactions`,
      );
      console.log(`[${store}] one at a time (${single.steps()} steps): ${single.roundTripsByKind()}`);
    }
  } finally {
    await service.stop();
    await cleanUp();
  }
}
await fake.close();
await api.close();
if (failed && process.env.SYNC_BENCH_STRICT === "1") process.exitCode = 1;
