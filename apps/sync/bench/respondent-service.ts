/**
 * sds-sync for respondent-routing.bench.ts: started in this process on a given store, waited
 * for until the matcher, the account and the routing data (groups, re-contact lists) are in,
 * and loaded from a child process (respondent-load.ts).
 */
import { fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SyncService } from "../src/service.ts";
import { BENCH_TOKEN } from "./bench-service.ts";
import type { LoadCommand, LoadPlan, LoadReport } from "./respondent-load.ts";

/** What `/v1/sync/status` said once the service was ready. */
export interface Readiness {
  readonly seconds: number;
  readonly matcherSurveys: number;
  readonly groupSurveys: number;
  readonly recontactStudies: number;
  readonly statsSurveys: number;
}

interface StatusBody {
  loop?: {
    matcher?: { surveys?: number };
    account?: { fetchedAt?: string | null };
    inventoryData?: { groups?: { surveys?: number }; recontact?: { studies?: number }; stats?: { surveys?: number } };
  };
}

/** Polls `/v1/sync/status` until the matcher holds surveys, the account was read and the groups and re-contact lists are stored. */
export async function waitUntilRoutable(service: SyncService, timeoutMs = 600_000): Promise<Readiness> {
  const started = performance.now();
  for (;;) {
    const response = await fetch(`${service.url}/v1/sync/status`, {
      headers: { authorization: `Bearer ${BENCH_TOKEN}` },
    });
    const loop = ((await response.json()) as StatusBody).loop;
    const data = loop?.inventoryData;
    const readiness: Readiness = {
      seconds: (performance.now() - started) / 1000,
      matcherSurveys: loop?.matcher?.surveys ?? 0,
      groupSurveys: data?.groups?.surveys ?? 0,
      recontactStudies: data?.recontact?.studies ?? 0,
      statsSurveys: data?.stats?.surveys ?? 0,
    };
    if (
      readiness.matcherSurveys > 0 &&
      readiness.groupSurveys > 0 &&
      readiness.recontactStudies > 0 &&
      typeof loop?.account?.fetchedAt === "string"
    )
      return readiness;
    if (performance.now() - started > timeoutMs)
      throw new Error(`sds-sync was not routable after ${timeoutMs / 1000} s: ${JSON.stringify(readiness)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A load run's report, with the service's own CPU per request (what a loaded, shared machine does not distort). */
export interface MeasuredLoad extends LoadReport {
  readonly cpuMsPerRequest: number;
}

/**
 * Runs one load from a child process against `path` of the service. With SYNC_BENCH_CPU_PROFILE
 * set to a directory, this process (the service) is profiled during the load only, into
 * `<directory>/<label>.cpuprofile` (read it with profile-summary.ts or Chrome's DevTools).
 */
export async function runLoad(
  service: SyncService,
  path: string,
  plan: LoadPlan,
  connections: number,
  seconds: number,
  label: string = plan.kind,
): Promise<MeasuredLoad> {
  const profileDirectory = process.env.SYNC_BENCH_CPU_PROFILE;
  const session = profileDirectory === undefined || profileDirectory === "" ? undefined : new Session();
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  }
  const cpuBefore = process.cpuUsage();
  const child = fork(fileURLToPath(new URL("./respondent-load.ts", import.meta.url)), [], {
    execArgv: ["--conditions=@sds/source"],
  });
  const report = await new Promise<LoadReport>((resolve, reject) => {
    child.once("message", (message: LoadReport) => {
      resolve(message);
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the load process exited with ${String(code)}`));
    });
    const command: LoadCommand = { url: `${service.url}${path}`, token: BENCH_TOKEN, plan, connections, seconds };
    child.send(command);
  });
  const cpu = process.cpuUsage(cpuBefore);
  if (session && profileDirectory !== undefined) {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    mkdirSync(profileDirectory, { recursive: true });
    writeFileSync(join(profileDirectory, `${label}.cpuprofile`), JSON.stringify(profile));
  }
  return { ...report, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(1, report.requests) };
}
