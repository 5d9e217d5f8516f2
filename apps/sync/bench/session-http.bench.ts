/**
 * Session steps over HTTP (`pnpm --filter @sds/sync bench:session-http`): sds-sync in this process
 * against the fake (SYNC_BENCH_SURVEYS live surveys, 2,000), on each store of SYNC_BENCH_STORES
 * (`sqlite,postgres`), and SYNC_BENCH_CONNECTIONS (50) clients walking respondents through
 * sessions for SYNC_BENCH_SECONDS (10): `POST /v1/sessions`, the answers to each question asked,
 * the return from each survey offered (a terminate, so the session re-routes) and the read of
 * the next step, until the session is done. Every one of those calls is a step. Goal (issue 28):
 * at least 1,000 steps/s on each store. The clients share the service's process and its two
 * cores: the figure is a floor.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { encryptionSigning, signUrl } from "@sds/routing";
import { DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl } from "../test/postgres.ts";
import { BENCH_TOKEN, benchInventory, startBenchService, untilFirstCycle } from "./bench-service.ts";

const GOAL_STEPS_PER_SECOND = 1000;
const surveyCount = Number(process.env.SYNC_BENCH_SURVEYS ?? 2000);
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 50);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const stores = (process.env.SYNC_BENCH_STORES ?? "sqlite,postgres").split(",");

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
    const signing = encryptionSigning(api.getAccount(DEFAULT_SUPPLIER_ID).OutgoingEncryption);
    const returnUrl = (token: string) => {
      const url = `${service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(token)}`;
      return signing === undefined ? url : signUrl(url, signing.key, signing.scheme);
    };
    let steps = 0;
    let sessions = 0;
    let errors = 0;
    const deadline = performance.now() + seconds * 1000;
    const call = async (path: string, body?: unknown): Promise<Session | undefined> => {
      const response = await fetch(`${service.url}${path}`, {
        headers,
        ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
      });
      const text = await response.text();
      steps++;
      if (!response.ok) {
        if (errors++ < 3) console.error(`${path}: ${response.status} ${text.slice(0, 200)}`);
        return undefined;
      }
      return JSON.parse(text) as Session;
    };
    const worker = async (worker: number): Promise<void> => {
      for (let index = 0; performance.now() < deadline; index++) {
        let session = await call("/v1/sessions", { uid: `bench-${store}-${worker}-${index}`, languageId: 3 });
        sessions++;
        for (let turn = 0; session !== undefined && turn < 12 && performance.now() < deadline; turn++) {
          const next: Step = session.next;
          if (next.kind === "question") {
            const answer =
              next.type === "numeric" ? ["34"] : next.type === "text" ? ["10001"] : [next.options?.[0]?.code ?? "1"];
            session = await call(`/v1/sessions/${session.id}/answers`, {
              answers: { [String(next.qualificationId)]: answer },
            });
          } else if (next.kind === "survey") {
            const back = await fetch(returnUrl(next.token ?? ""), { redirect: "manual" });
            await back.arrayBuffer();
            steps++;
            if (back.status !== 303 && errors++ < 3) console.error(`return: ${back.status}`);
            session = await call(`/v1/sessions/${session.id}`);
          } else break;
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: connections }, (_, index) => worker(index)));
    const elapsed = (performance.now() - started) / 1000;
    const rate = steps / elapsed;
    const met = rate >= GOAL_STEPS_PER_SECOND && errors === 0;
    failed ||= !met;
    console.log(
      `[${store}] ${steps} steps (${sessions} sessions) in ${elapsed.toFixed(1)} s at ${connections} connections: ${rate.toFixed(0)} steps/s ` +
        `(goal >= ${GOAL_STEPS_PER_SECOND}: ${met ? "met" : "NOT met"}), ${errors} errors; load ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await service.stop();
    await cleanUp();
  }
}
await fake.close();
await api.close();
if (failed && process.env.SYNC_BENCH_STRICT === "1") process.exitCode = 1;
