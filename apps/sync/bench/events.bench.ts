/**
 * Events out (`pnpm --filter @sds/sync bench:events`, issue 30). sds-sync runs in this process on
 * SQLite against the fake (SYNC_BENCH_SURVEYS, 50, live surveys), with a `nats-server -js` this
 * benchmark starts on a free port:
 *
 * 1. the loop under load with the relay off, then on: SYNC_BENCH_WORKERS (16) respondents in a
 *    child process take an entry link and report its complete, one after another, for
 *    SYNC_BENCH_SECONDS (10), while `/v1/sync/status` is read every 100 ms; with the relay on, the
 *    child also takes every outcome event from NATS and measures its lag (from `receivedAt`).
 *    Off and on alternate for SYNC_BENCH_ROUNDS (2) rounds, each on a fresh store;
 * 2. the relay's own rate: SYNC_BENCH_BACKLOG (50,000) outcomes recorded with the relay off, then
 *    a service with the relay on drains them to JetStream.
 *
 * Goals: ≥ 5,000 events/s published, lag p99 ≤ 1 s, entry links/s and status p99 within 10 % of
 * the relay off. The figures are written to SYNC_BENCH_JSON when set.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { startNatsServer } from "../test/nats-server.ts";
import { BENCH_TOKEN, startBenchService, untilFirstCycle } from "./bench-service.ts";
import type { EventsLoadCommand, EventsLoadReport } from "./events-load.ts";

const surveyCount = Number(process.env.SYNC_BENCH_SURVEYS ?? 50);
const workers = Number(process.env.SYNC_BENCH_WORKERS ?? 16);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const backlog = Number(process.env.SYNC_BENCH_BACKLOG ?? 50_000);
const rounds = Number(process.env.SYNC_BENCH_ROUNDS ?? 2);
const goals = { eventsPerSecond: 5000, lagP99Ms: 1000, loopShare: 0.1 };
const FIRST = 300_001;

function load(command: EventsLoadCommand): Promise<EventsLoadReport> {
  const child = fork(fileURLToPath(new URL("events-load.ts", import.meta.url)), [], {
    execArgv: ["--conditions=@sds/source"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (report: EventsLoadReport) => {
      resolve(report);
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`events-load.ts exited with ${String(code)}`));
    });
    child.send(command);
  });
}

const api = createFakeSupplierApi({
  seed: 11,
  suppliers: [
    {
      supplierId: DEFAULT_SUPPLIER_ID,
      apiKey: DEFAULT_API_KEY,
      surveys: Array.from({ length: surveyCount }, (_, index) => ({
        survey: {
          SurveyId: FIRST + index,
          Cpi: "1.75",
          SurveyUrl: `https://survey.example.com/s/${FIRST + index}?rid=[%RID%]`,
          Has_Qualifications: false,
          Has_Quotas: false,
          Has_Survey_Groups: false,
          // Not a re-contact study: every respondent may enter.
          StudyTypeId: 1,
        },
      })),
      account: {
        OutgoingEncryption: { Enabled: false, Algorithm: "SHA256", QueryParameter: "hash", EncryptionKey: "unused" },
      },
    },
  ],
  requestLogLimit: 10,
});
const fake = await api.listen();
const nats = await startNatsServer();
const directory = mkdtempSync(join(tmpdir(), "sds-sync-events-bench-"));
const surveyIds = Array.from({ length: surveyCount }, (_, index) => FIRST + index);
const natsEnv = { SYNC_NATS_URL: nats.url };

/** One run of the load against a fresh store, with or without the relay. */
async function loopUnderLoad(relay: boolean, round: number): Promise<EventsLoadReport> {
  const service = await startBenchService(
    fake.baseUrl,
    `sqlite:${join(directory, `load-${relay ? "on" : "off"}-${round}.db`)}`,
    relay ? natsEnv : {},
  );
  try {
    await untilFirstCycle(service);
    // Surveys whose study type is not known yet stay out of routing: start once it is read.
    while (!service.loop.facts.studyTypesKnown || service.loop.facts.pending.studyTypes > 0)
      await new Promise((resolve) => setTimeout(resolve, 50));
    return await load({
      url: service.url,
      token: BENCH_TOKEN,
      surveyIds,
      workers,
      seconds,
      tokenPrefix: `${relay ? "on" : "off"}-${round}`,
      ...(relay ? { nats: { url: nats.url, subjectPrefix: "sds" } } : {}),
    });
  } finally {
    await service.stop();
  }
}

/** Records `backlog` outcomes with the relay off, then times a relay draining them to JetStream. */
async function drainBacklog(): Promise<{ readonly events: number; readonly seconds: number }> {
  const database = `sqlite:${join(directory, "backlog.db")}`;
  const writer = await startBenchService(fake.baseUrl, database);
  await untilFirstCycle(writer);
  for (let start = 0; start < backlog; start += 1000)
    await Promise.all(
      Array.from({ length: Math.min(1000, backlog - start) }, (_, index) =>
        writer.loop.store.recordOutcome({ token: `backlog-${start + index}`, outcome: "complete", at: new Date() }),
      ),
    );
  await writer.stop();
  const relay = await startBenchService(fake.baseUrl, database, {
    ...natsEnv,
    SYNC_NATS_STREAM: "BACKLOG",
    SYNC_NATS_SUBJECT_PREFIX: "backlog",
  });
  const started = performance.now();
  try {
    for (;;) {
      const [status] = (await relay.events.monitor.refresh()).filter((entry) => entry.feed === "outcomes");
      if (status !== undefined && status.position !== null && status.position >= backlog) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { events: backlog, seconds: (performance.now() - started) / 1000 };
  } finally {
    await relay.stop();
  }
}

/** The load's figures summed over rounds: relay off and on alternate, so a machine whose load drifts weighs on both alike. */
function sum(reports: readonly EventsLoadReport[]): EventsLoadReport {
  const all = <K extends keyof EventsLoadReport>(key: K) => reports.map((report) => report[key]);
  const total = (key: "entryLinks" | "outcomes" | "failures" | "seconds" | "events") =>
    all(key).reduce((a, b) => a + b, 0);
  return {
    entryLinks: total("entryLinks"),
    outcomes: total("outcomes"),
    failures: total("failures"),
    seconds: total("seconds"),
    events: total("events"),
    statusP99Ms: Math.max(...all("statusP99Ms")),
    lagP50Ms: Math.max(...all("lagP50Ms")),
    lagP99Ms: Math.max(...all("lagP99Ms")),
    lagMaxMs: Math.max(...all("lagMaxMs")),
  };
}

try {
  const offs: EventsLoadReport[] = [];
  const ons: EventsLoadReport[] = [];
  for (let round = 0; round < rounds; round++) {
    offs.push(await loopUnderLoad(false, round));
    ons.push(await loopUnderLoad(true, round));
  }
  const off = sum(offs);
  const on = sum(ons);
  const drained = await drainBacklog();
  const linksOff = off.entryLinks / off.seconds;
  const linksOn = on.entryLinks / on.seconds;
  const published = drained.events / drained.seconds;
  const figures = {
    load: { workers, seconds, loadAverage: loadavg()[0] },
    relayOff: {
      entryLinksPerSecond: Math.round(linksOff),
      statusP99Ms: Math.round(off.statusP99Ms),
      failures: off.failures,
    },
    relayOn: {
      entryLinksPerSecond: Math.round(linksOn),
      statusP99Ms: Math.round(on.statusP99Ms),
      failures: on.failures,
      outcomes: on.outcomes,
      eventsReceived: on.events,
      lagP50Ms: Math.round(on.lagP50Ms),
      lagP99Ms: Math.round(on.lagP99Ms),
      lagMaxMs: Math.round(on.lagMaxMs),
    },
    backlog: {
      events: drained.events,
      seconds: Math.round(drained.seconds * 100) / 100,
      eventsPerSecond: Math.round(published),
    },
  };
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
  process.stdout.write(
    [
      `events out: ${workers} respondents for ${seconds} s × ${rounds} rounds each way, ${surveyCount} surveys, SQLite (load average ${loadavg()[0]?.toFixed(2)})`,
      `  relay off: ${figures.relayOff.entryLinksPerSecond} entry links/s, status p99 ${figures.relayOff.statusP99Ms} ms`,
      `  relay on:  ${figures.relayOn.entryLinksPerSecond} entry links/s, status p99 ${figures.relayOn.statusP99Ms} ms` +
        ` (entry links ${verdict(linksOn >= linksOff * (1 - goals.loopShare))}, status p99 ${verdict(on.statusP99Ms <= off.statusP99Ms * (1 + goals.loopShare))}: within 10 %)`,
      `  lag of ${on.events}/${on.outcomes} outcome events: p50 ${figures.relayOn.lagP50Ms} ms, p99 ${figures.relayOn.lagP99Ms} ms, max ${figures.relayOn.lagMaxMs} ms (${verdict(on.lagP99Ms <= goals.lagP99Ms && on.events >= on.outcomes)}: p99 ≤ 1 s)`,
      `  backlog: ${drained.events} events published to JetStream in ${figures.backlog.seconds} s = ${figures.backlog.eventsPerSecond} events/s (${verdict(published >= goals.eventsPerSecond)}: ≥ 5,000)`,
      "",
    ].join("\n"),
  );
  if (process.env.SYNC_BENCH_JSON) writeFileSync(process.env.SYNC_BENCH_JSON, `${JSON.stringify(figures, null, 2)}\n`);
} finally {
  await nats.close();
  await fake.close();
  await api.close();
  rmSync(directory, { recursive: true, force: true });
}
