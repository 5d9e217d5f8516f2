/**
 * Events out (`pnpm --filter @sds/sync bench:events`). sds-sync runs in this process on SQLite
 * against the fake (SYNC_BENCH_SURVEYS, 50, live surveys), with a `nats-server -js` this
 * benchmark starts on a free port:
 *
 * 1. the loop under load with the relay off, then on: SYNC_BENCH_WORKERS (16) respondents in a
 *    child process take an entry link and report its complete, one after another, for
 *    SYNC_BENCH_SECONDS (10), while `/v1/sync/status` is read every 100 ms; with the relay on, the
 *    child also takes every outcome event from NATS and measures its lag (from `receivedAt`);
 * 2. outcomes recorded at full speed with the relay off, then on: SYNC_BENCH_FLOOD_CONNECTIONS
 *    (32) connections send S2S outcome calls as fast as they are answered for SYNC_BENCH_SECONDS,
 *    status read as above; with the relay on, the events published per second (received from NATS
 *    over the time from the flood's start to the last event's arrival) and their lag;
 * 3. the relay's own ceiling: SYNC_BENCH_BACKLOG (50,000) outcomes recorded with the relay off,
 *    then a service with the relay on drains them to JetStream.
 *
 * Off and on alternate for SYNC_BENCH_ROUNDS (2) rounds, each on a fresh store and (relay on) a
 * stream of its own, after a warm-up run of (1) with the relay on for SYNC_BENCH_WARMUP_SECONDS (3)
 * that is not counted. Goals: ≥ 5,000 events/s published, lag p99 ≤ 1 s, entry links/s and status
 * p99 with the relay on within 10 % of off (as ratios). The figures are written to
 * SYNC_BENCH_JSON when set.
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
const floodConnections = Number(process.env.SYNC_BENCH_FLOOD_CONNECTIONS ?? 32);
const warmUpSeconds = Number(process.env.SYNC_BENCH_WARMUP_SECONDS ?? 3);
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

/** The two loads: respondents taking entry links and reporting outcomes, or a flood of outcome calls alone. */
type LoadKind = "loop" | "flood";

/** A run's figures: the load's, and the CPU this process (sds-sync) spent meanwhile, which a loaded machine distorts far less than rates. */
interface RunFigures extends EventsLoadReport {
  readonly cpuMs: number;
}

/** One run of a load against a fresh store, with or without the relay (then into a stream of its own). */
async function underLoad(kind: LoadKind, relay: boolean, round: number | "warm-up"): Promise<RunFigures> {
  const run = `${kind}-${relay ? "on" : "off"}-${round}`;
  const subjectPrefix = `bench.${kind}${round}`;
  const service = await startBenchService(
    fake.baseUrl,
    `sqlite:${join(directory, `${run}.db`)}`,
    relay
      ? {
          ...natsEnv,
          SYNC_NATS_STREAM: `BENCH_${kind.toUpperCase()}_${round}`,
          SYNC_NATS_SUBJECT_PREFIX: subjectPrefix,
        }
      : {},
  );
  try {
    await untilFirstCycle(service);
    // Surveys whose study type is not known yet stay out of routing: start once it is read.
    while (!service.loop.facts.studyTypesKnown || service.loop.facts.pending.studyTypes > 0)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const cpuBefore = process.cpuUsage();
    const report = await load({
      url: service.url,
      token: BENCH_TOKEN,
      surveyIds,
      workers: kind === "flood" ? floodConnections : workers,
      seconds: round === "warm-up" ? warmUpSeconds : seconds,
      tokenPrefix: run,
      flood: kind === "flood",
      ...(relay ? { nats: { url: nats.url, subjectPrefix } } : {}),
    });
    const cpu = process.cpuUsage(cpuBefore);
    return { ...report, cpuMs: (cpu.user + cpu.system) / 1000 };
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
function sum(reports: readonly RunFigures[]): RunFigures {
  const all = <K extends keyof RunFigures>(key: K) => reports.map((report) => report[key]);
  const total = (key: "entryLinks" | "outcomes" | "failures" | "seconds" | "events" | "eventsSeconds" | "cpuMs") =>
    all(key).reduce((a, b) => a + b, 0);
  return {
    entryLinks: total("entryLinks"),
    outcomes: total("outcomes"),
    failures: total("failures"),
    seconds: total("seconds"),
    events: total("events"),
    eventsSeconds: total("eventsSeconds"),
    cpuMs: total("cpuMs"),
    statusP99Ms: Math.max(...all("statusP99Ms")),
    lagP50Ms: Math.max(...all("lagP50Ms")),
    lagP99Ms: Math.max(...all("lagP99Ms")),
    lagMaxMs: Math.max(...all("lagMaxMs")),
  };
}

/** Relay off and on alternating, `rounds` times, under one kind of load. */
async function offAndOn(kind: LoadKind): Promise<{ readonly off: RunFigures; readonly on: RunFigures }> {
  const offs: RunFigures[] = [];
  const ons: RunFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    offs.push(await underLoad(kind, false, round));
    ons.push(await underLoad(kind, true, round));
  }
  return { off: sum(offs), on: sum(ons) };
}

const ms = (value: number) => Math.round(value);
const ratio = (value: number) => Math.round(value * 100) / 100;
const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");

try {
  // Not counted: the first run would pay for compiling the hot paths, and off runs first.
  await underLoad("loop", true, "warm-up");
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const loop = await offAndOn("loop");
  const flood = await offAndOn("flood");
  const drained = await drainBacklog();
  const loadAtEnd = loadavg()[0] ?? Number.NaN;
  const linksRatio = loop.on.entryLinks / loop.on.seconds / (loop.off.entryLinks / loop.off.seconds);
  const statusRatio = loop.on.statusP99Ms / loop.off.statusP99Ms;
  const recordedOff = flood.off.outcomes / flood.off.seconds;
  const recordedOn = flood.on.outcomes / flood.on.seconds;
  const publishedFlood = flood.on.events / flood.on.eventsSeconds;
  const publishedBacklog = drained.events / drained.seconds;
  /** Microseconds of sds-sync's CPU per entry link (with its outcome) or per outcome. */
  const cpuPer = (report: RunFigures, count: number) => Math.round((report.cpuMs * 1000) / Math.max(1, count));
  const cpuFigures = (off: number, on: number) => ({ off, on, ratio: ratio(on / off) });
  const loopCpu = cpuFigures(cpuPer(loop.off, loop.off.entryLinks), cpuPer(loop.on, loop.on.entryLinks));
  const floodCpu = cpuFigures(cpuPer(flood.off, flood.off.outcomes), cpuPer(flood.on, flood.on.outcomes));
  const lagFigures = (report: EventsLoadReport) => ({
    outcomes: report.outcomes,
    eventsReceived: report.events,
    lagP50Ms: ms(report.lagP50Ms),
    lagP99Ms: ms(report.lagP99Ms),
    lagMaxMs: ms(report.lagMaxMs),
  });
  const figures = {
    load: { workers, floodConnections, seconds, rounds, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAtEnd },
    loop: {
      entryLinksPerSecond: {
        off: ms(loop.off.entryLinks / loop.off.seconds),
        on: ms(loop.on.entryLinks / loop.on.seconds),
        ratio: ratio(linksRatio),
      },
      statusP99Ms: { off: ms(loop.off.statusP99Ms), on: ms(loop.on.statusP99Ms), ratio: ratio(statusRatio) },
      cpuMicrosecondsPerEntryLink: loopCpu,
      failures: { off: loop.off.failures, on: loop.on.failures },
      ...lagFigures(loop.on),
    },
    flood: {
      outcomesRecordedPerSecond: { off: ms(recordedOff), on: ms(recordedOn), ratio: ratio(recordedOn / recordedOff) },
      statusP99Ms: {
        off: ms(flood.off.statusP99Ms),
        on: ms(flood.on.statusP99Ms),
        ratio: ratio(flood.on.statusP99Ms / flood.off.statusP99Ms),
      },
      cpuMicrosecondsPerOutcome: floodCpu,
      failures: { off: flood.off.failures, on: flood.on.failures },
      eventsPublishedPerSecond: ms(publishedFlood),
      ...lagFigures(flood.on),
    },
    backlog: {
      events: drained.events,
      seconds: Math.round(drained.seconds * 100) / 100,
      eventsPerSecond: ms(publishedBacklog),
    },
  };
  const lagLine = (report: EventsLoadReport) =>
    `lag of ${report.events}/${report.outcomes} outcome events p50 ${ms(report.lagP50Ms)} ms, p99 ${ms(report.lagP99Ms)} ms, max ${ms(report.lagMaxMs)} ms (${verdict(report.lagP99Ms <= goals.lagP99Ms && report.events >= report.outcomes)}: p99 ≤ 1 s, every event)`;
  process.stdout.write(
    [
      `events out: ${surveyCount} surveys, SQLite, ${rounds} rounds each way, ${seconds} s each (load average ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end)`,
      `  (1) ${workers} respondents, entry link then complete:`,
      `      entry links/s off → on: ${figures.loop.entryLinksPerSecond.off} → ${figures.loop.entryLinksPerSecond.on} = ${figures.loop.entryLinksPerSecond.ratio} (${verdict(linksRatio >= 1 - goals.loopShare)}: ≥ 0.90)`,
      `      status p99 off → on: ${figures.loop.statusP99Ms.off} → ${figures.loop.statusP99Ms.on} ms = ${figures.loop.statusP99Ms.ratio} (${verdict(statusRatio <= 1 + goals.loopShare)}: ≤ 1.10)`,
      `      sds-sync CPU per entry link and its outcome off → on: ${loopCpu.off} → ${loopCpu.on} µs = ${loopCpu.ratio}`,
      `      ${lagLine(loop.on)}`,
      `  (2) ${floodConnections} connections flooding outcome calls:`,
      `      outcomes recorded/s off → on: ${figures.flood.outcomesRecordedPerSecond.off} → ${figures.flood.outcomesRecordedPerSecond.on} = ${figures.flood.outcomesRecordedPerSecond.ratio}`,
      `      status p99 off → on: ${figures.flood.statusP99Ms.off} → ${figures.flood.statusP99Ms.on} ms = ${figures.flood.statusP99Ms.ratio}`,
      `      sds-sync CPU per outcome off → on: ${floodCpu.off} → ${floodCpu.on} µs = ${floodCpu.ratio}`,
      `      published to JetStream: ${flood.on.events} events in ${flood.on.eventsSeconds.toFixed(2)} s = ${figures.flood.eventsPublishedPerSecond} events/s (${verdict(publishedFlood >= goals.eventsPerSecond)}: ≥ 5,000)`,
      `      ${lagLine(flood.on)}`,
      `  (3) backlog: ${drained.events} events drained to JetStream in ${figures.backlog.seconds} s = ${figures.backlog.eventsPerSecond} events/s`,
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
