/**
 * Yield ranking's proof (`pnpm --filter @sds/sync bench:yield`): for each seed, a seeded
 * marketplace simulation (`@sds/testing`, SYNC_BENCH_SURVEYS 200 surveys, SYNC_BENCH_RESPONDENTS
 * 5,000 respondents) is run through a real sds-sync over HTTP twice, once with `order: "earnings"`
 * and once with `order: "yield"` (exploration on), each on a FRESH service and store so that yield
 * learns from nothing; and once through the simulation's oracle, which knows the hidden
 * conversions. Goals (issue 22): yield earns at least 0.85 of the oracle, and never less than
 * 0.95 of earnings, on every seed.
 *
 * Pacing: a replica reloads the per-survey counts from the store every 2 s. At real traffic
 * (a few respondents a second) that is a reload every few respondents; the bench runs thousands
 * of respondents a second, so it reloads the counts itself before every SYNC_BENCH_RELOAD_EVERY-th
 * respondent (10: a supplier sending 5 respondents a second), the same read the timer does.
 * SYNC_BENCH_RELOAD_EVERY=0 leaves it to the 2 s timer alone (yield then learns in steps of
 * however many respondents the machine gets through in 2 s).
 *
 * Environment: SYNC_BENCH_SEEDS (1,11,42), SYNC_BENCH_CONCURRENCY (respondents in flight, 4),
 * SYNC_BENCH_JSON (write the figures there), SYNC_BENCH_STRICT=1 (exit 1 on a missed goal),
 * and SYNC_YIELD_PRIOR_STRENGTH, SYNC_YIELD_CUTOFF_ENTRIES, SYNC_YIELD_COOLDOWN_SECONDS,
 * SYNC_STATS_REFRESH_SECONDS (0: no Get Survey Stats, the prior is Ir) passed to sds-sync.
 */
import { writeFileSync } from "node:fs";
import {
  createMarketplaceSimulation,
  oracleRouter,
  policyRouter,
  runSimulation,
  type MarketplaceSimulation,
  type SimulationResult,
} from "@sds/testing";
import { httpSimulationRouter } from "./http-simulation-router.ts";
import { reachableOracleRouter, recontactSurveyCount } from "./simulation-references.ts";
import { startSimulationService } from "./simulation-service.ts";

const GOAL_OF_ORACLE = 0.85;
const GOAL_OF_EARNINGS = 0.95;

function integerList(raw: string | undefined, fallback: readonly number[]): number[] {
  if (raw === undefined || raw.trim() === "") return [...fallback];
  const values = raw.split(",").map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isSafeInteger(value) || value < 0))
    throw new Error(`SYNC_BENCH_SEEDS must be a comma-separated list of integers, got ${JSON.stringify(raw)}`);
  return values;
}

function integerSetting(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`${name} must be an integer of at least ${min}, got ${JSON.stringify(raw)}`);
  return value;
}

const seeds = integerList(process.env.SYNC_BENCH_SEEDS, [1, 11, 42]);
const surveys = integerSetting("SYNC_BENCH_SURVEYS", 200, 1);
const respondents = integerSetting("SYNC_BENCH_RESPONDENTS", 5000, 1);
const concurrency = integerSetting("SYNC_BENCH_CONCURRENCY", 4, 1);
const reloadEvery = integerSetting("SYNC_BENCH_RELOAD_EVERY", 10, 0);

interface PolicyRun {
  readonly revenuePerRespondent: number;
  readonly entries: number;
  readonly completes: number;
  readonly ineligibleEntries: number;
  readonly unrouted: number;
  readonly seconds: number;
  readonly reloads: number;
  readonly requestsPerSecond: number;
  readonly statsRead: number;
}

/** One policy over HTTP on a fresh sds-sync. */
async function runOverHttp(simulation: MarketplaceSimulation, order: "earnings" | "yield"): Promise<PolicyRun> {
  const running = await startSimulationService(simulation);
  try {
    const { router, tally } = httpSimulationRouter(running.service, { order, reloadEvery });
    const started = performance.now();
    const result = await runSimulation(simulation, router, { concurrency });
    const seconds = (performance.now() - started) / 1000;
    return {
      ...totals(result),
      seconds,
      reloads: tally.reloads,
      requestsPerSecond: tally.requests / seconds,
      statsRead: running.statsRead,
    };
  } finally {
    await running.close();
  }
}

function totals(result: SimulationResult) {
  const { revenuePerRespondent, entries, completes, ineligibleEntries, unrouted } = result;
  return { revenuePerRespondent, entries, completes, ineligibleEntries, unrouted };
}

const ratio = (value: number, of: number) => (of === 0 ? 0 : value / of);
const verdict = (value: number, goal: number) => (value >= goal ? "PASS" : "MISS");

console.log(
  `yield proof: ${surveys} surveys, ${respondents} respondents, seeds ${seeds.join(", ")}; concurrency ${concurrency}; ` +
    (reloadEvery > 0
      ? `yield counts reloaded before every ${reloadEvery}th respondent`
      : "yield counts reloaded by the service's 2 s timer only") +
    `; prior strength ${process.env.SYNC_YIELD_PRIOR_STRENGTH ?? "10"}, cut-off ${process.env.SYNC_YIELD_CUTOFF_ENTRIES ?? "20"} entries` +
    (process.env.SYNC_STATS_REFRESH_SECONDS === "0" ? ", no survey stats (prior Ir)" : ""),
);
const figures = [];
let missed = false;
for (const seed of seeds) {
  const simulation = createMarketplaceSimulation({ seed, surveys, respondents });
  const oracle = await runSimulation(simulation, oracleRouter(simulation));
  const reachable = await runSimulation(simulation, reachableOracleRouter(simulation));
  const inMemoryEarnings = await runSimulation(
    simulation,
    policyRouter(simulation, ({ survey }) => (Number(survey.Cpi) * Number(survey.Ir)) / 100),
  );
  const earnings = await runOverHttp(simulation, "earnings");
  const yieldRun = await runOverHttp(simulation, "yield");
  const ofOracle = ratio(yieldRun.revenuePerRespondent, oracle.revenuePerRespondent);
  const ofEarnings = ratio(yieldRun.revenuePerRespondent, earnings.revenuePerRespondent);
  missed ||= ofOracle < GOAL_OF_ORACLE || ofEarnings < GOAL_OF_EARNINGS;
  const row = {
    seed,
    recontactSurveys: recontactSurveyCount(simulation),
    oracle: oracle.revenuePerRespondent,
    reachableOracle: reachable.revenuePerRespondent,
    inMemoryEarnings: inMemoryEarnings.revenuePerRespondent,
    earnings,
    yield: yieldRun,
    yieldOfOracle: ofOracle,
    yieldOfEarnings: ofEarnings,
    earningsOfOracle: ratio(earnings.revenuePerRespondent, oracle.revenuePerRespondent),
  };
  figures.push(row);
  console.log(
    `seed ${seed}: revenue/respondent oracle ${oracle.revenuePerRespondent.toFixed(3)} (${reachable.revenuePerRespondent.toFixed(3)} without the ${row.recontactSurveys} re-contact studies sds-sync keeps out), ` +
      `earnings ${earnings.revenuePerRespondent.toFixed(3)} (in memory ${inMemoryEarnings.revenuePerRespondent.toFixed(3)}), yield ${yieldRun.revenuePerRespondent.toFixed(3)}; ` +
      `yield/oracle ${ofOracle.toFixed(3)} (goal >= ${GOAL_OF_ORACLE}: ${verdict(ofOracle, GOAL_OF_ORACLE)}), ` +
      `yield/earnings ${ofEarnings.toFixed(3)} (goal >= ${GOAL_OF_EARNINGS}: ${verdict(ofEarnings, GOAL_OF_EARNINGS)}); ` +
      `yield run ${yieldRun.seconds.toFixed(1)} s, ${Math.round(yieldRun.requestsPerSecond)} HTTP requests/s, ${yieldRun.reloads} reloads, stats of ${yieldRun.statsRead} surveys`,
  );
}
console.table(
  figures.map((row) => ({
    seed: row.seed,
    oracle: row.oracle.toFixed(3),
    earnings: row.earnings.revenuePerRespondent.toFixed(3),
    yield: row.yield.revenuePerRespondent.toFixed(3),
    "yield/oracle": `${row.yieldOfOracle.toFixed(3)} ${verdict(row.yieldOfOracle, GOAL_OF_ORACLE)}`,
    "yield/earnings": `${row.yieldOfEarnings.toFixed(3)} ${verdict(row.yieldOfEarnings, GOAL_OF_EARNINGS)}`,
  })),
);
if (process.env.SYNC_BENCH_JSON) {
  const settings = {
    surveys,
    respondents,
    concurrency,
    reloadEvery,
    priorStrength: process.env.SYNC_YIELD_PRIOR_STRENGTH ?? "10",
    statsRefreshSeconds: process.env.SYNC_STATS_REFRESH_SECONDS ?? "600",
  };
  writeFileSync(
    process.env.SYNC_BENCH_JSON,
    `${JSON.stringify({ settings, goals: { ofOracle: GOAL_OF_ORACLE, ofEarnings: GOAL_OF_EARNINGS }, figures }, null, 2)}\n`,
  );
}
if (missed && process.env.SYNC_BENCH_STRICT === "1") process.exitCode = 1;
