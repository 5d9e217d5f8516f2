/**
 * The loop store's own CPU per entry link and per outcome, without HTTP
 * (`pnpm --filter @sds/sync bench:loop-store`): what respondent-routing.bench.ts's CPU per link
 * holds for `recordEntry`, measured apart so a change of the data layer shows against the same
 * load. On each store of SYNC_BENCH_STORES (`sqlite,postgres`; PostgreSQL at
 * SDS_TEST_DATABASE_URL in a fresh schema, skipped when unreachable outside CI), a fresh loop
 * store gets SYNC_BENCH_RESPONDENTS (5,000) respondents with 10 past entries each, then records
 * SYNC_BENCH_ENTRIES (5,000) entry links three times over, SYNC_BENCH_IN_FLIGHT (50) at a time,
 * each admitted against the respondent's history as the route does, then an outcome for each
 * entry of the three rounds (a third complete, the rest terminate). CPU is this process's
 * (`process.cpuUsage`): on a shared machine compare it, not the rates beside it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseConfig } from "../src/database/database-config.ts";
import { openLoopStore } from "../src/loop/store/open-loop-store.ts";
import { defaultRecordingSettings } from "../src/loop/store/loop-records.ts";
import type { HistoryInput, LoopStore, RespondentHistory } from "../src/loop/store/loop-store.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "../test/postgres.ts";

const stores = (process.env.SYNC_BENCH_STORES ?? "sqlite,postgres").split(",").map((store) => store.trim());
const respondents = Number(process.env.SYNC_BENCH_RESPONDENTS ?? 5000);
const entries = Number(process.env.SYNC_BENCH_ENTRIES ?? 5000);
const inFlight = Number(process.env.SYNC_BENCH_IN_FLIGHT ?? 50);
const PAST_ENTRIES = 10;
const HOUR_MS = 3_600_000;

/** The route's admission in shape: it reads the whole history it is given and admits. */
const admit = (history: RespondentHistory): string | undefined =>
  history.entries.some((past) => past.surveyId < 0) ? "impossible" : undefined;

/** Runs `count` calls of `work`, `inFlight` at a time; this process's CPU milliseconds per call and calls per second. */
async function measure(count: number, work: (index: number) => Promise<void>) {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const used = process.cpuUsage(cpu);
  return {
    cpuMs: (used.user + used.system) / 1000 / count,
    perSecond: Math.round((count / (performance.now() - started)) * 1000),
  };
}

async function importHistories(store: LoopStore, now: number): Promise<void> {
  const batch: HistoryInput[] = [];
  for (let respondent = 0; respondent < respondents; respondent++) {
    for (let past = 0; past < PAST_ENTRIES; past++)
      batch.push({
        uid: `u${respondent}`,
        surveyId: 1000 + ((respondent * 7 + past * 13) % 500),
        enteredAt: new Date(now - (past + 1) * 5 * HOUR_MS),
      });
    if (batch.length >= 1000) await store.importHistory(batch.splice(0));
  }
  if (batch.length > 0) await store.importHistory(batch);
}

async function recordEntries(store: LoopStore, round: string) {
  return measure(entries, async (index) => {
    const result = await store.recordEntry(
      {
        token: `${round}-${index}`,
        surveyId: 1 + (index % 400),
        uid: `u${index % respondents}`,
        cpi: 1.25,
        at: new Date(),
        loiMinutes: 10,
      },
      admit,
    );
    if (result.kind !== "recorded") throw new Error(`entry ${round}-${index} was not recorded: ${result.kind}`);
  });
}

async function recordOutcomes(store: LoopStore, round: string) {
  return measure(entries, async (index) => {
    const outcome = index % 3 === 0 ? "complete" : "terminate";
    const result = await store.recordOutcome({ token: `${round}-${index}`, outcome, at: new Date(), source: "s2s" });
    if (!result.recorded) throw new Error(`the outcome of ${round}-${index} was not recorded`);
  });
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

console.log(
  `load average before: ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`,
);
for (const name of stores) {
  let database: DatabaseConfig;
  let cleanUp: () => Promise<void>;
  if (name === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-loop-store-bench-"));
    database = { kind: "sqlite", path: join(directory, "sds.db") };
    cleanUp = () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    };
  } else if (name === "postgres") {
    if (!(await postgresAvailable())) continue;
    const schema = freshSchemaName("sds_bench");
    database = { kind: "postgres", connectionString: testDatabaseUrl, schema };
    cleanUp = () => dropSchema(schema);
  } else throw new Error(`SYNC_BENCH_STORES names ${name}: sqlite or postgres`);

  const store = await openLoopStore(database, defaultRecordingSettings);
  try {
    await importHistories(store, Date.now());
    await recordEntries(store, "warm-up");
    const entryRounds = [];
    for (const round of ["r1", "r2", "r3"]) entryRounds.push(await recordEntries(store, round));
    const outcomeRounds = [];
    for (const round of ["r1", "r2", "r3"]) outcomeRounds.push(await recordOutcomes(store, round));
    console.log(
      `[${name}] recordEntry ${median(entryRounds.map((round) => round.cpuMs)).toFixed(4)} ms CPU (median of 3 rounds; ` +
        `${entryRounds.map((round) => round.perSecond).join(", ")} entries/s), recordOutcome ` +
        `${median(outcomeRounds.map((round) => round.cpuMs)).toFixed(4)} ms CPU (median of 3; ${outcomeRounds.map((round) => round.perSecond).join(", ")} outcomes/s)`,
    );
  } finally {
    await store.close();
    await cleanUp();
  }
}
console.log(
  `load average after: ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`,
);
