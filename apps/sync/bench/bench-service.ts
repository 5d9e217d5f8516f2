/**
 * What the HTTP benchmarks share: the fake's inventory of live surveys with qualifications and
 * quotas, sds-sync started in this process against it, the wait for its first cycle, and the
 * respondents' match bodies drawn from the fake's catalogue.
 */
import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  languages,
  qualificationCatalogue,
} from "@sds/testing";
import type { FakeSupplierApi, SurveyInit } from "@sds/testing";
import { pino } from "pino";
import { loadConfig } from "../src/config/config.ts";
import { startSyncService, type SyncService } from "../src/service.ts";

/** The bearer token of the benchmarks' services. */
export const BENCH_TOKEN = "bench-token-0123456789abcdef";
/** The first SurveyId of a benchmark inventory. */
export const FIRST_SURVEY_ID = 200_001;

/**
 * The fake with `count` live surveys (ids from {@link FIRST_SURVEY_ID}), each with qualifications
 * from the catalogue and quotas; `extra` adds fields per survey (groups, a study type).
 */
export function benchInventory(
  count: number,
  extra: (index: number) => Partial<NonNullable<SurveyInit["survey"]>> = () => ({}),
): FakeSupplierApi {
  return createFakeSupplierApi({
    seed: 7,
    suppliers: [
      {
        supplierId: DEFAULT_SUPPLIER_ID,
        apiKey: DEFAULT_API_KEY,
        surveys: Array.from({ length: count }, (_, index) => ({
          survey: { SurveyId: FIRST_SURVEY_ID + index, Has_Qualifications: true, Has_Quotas: true, ...extra(index) },
        })),
      },
    ],
    requestLogLimit: 10,
  });
}

/**
 * Starts sds-sync in this process on `databaseUrl` against the fake (an hourly interval, so only
 * the start-up cycle runs; bearer token {@link BENCH_TOKEN}); `env` adds or overrides settings.
 * It logs errors only, to stderr (SYNC_BENCH_LOG_LEVEL): a benchmark that hides a failing route
 * measures nothing.
 */
export function startBenchService(
  fakeUrl: string,
  databaseUrl: string,
  env: Readonly<Record<string, string>> = {},
): Promise<SyncService> {
  return startSyncService({
    config: loadConfig({
      SDS_BASE_URL: fakeUrl,
      SDS_API_KEY: DEFAULT_API_KEY,
      DATABASE_URL: databaseUrl,
      SYNC_INTERVAL: "3600",
      SYNC_CONCURRENCY: "32",
      PORT: "0",
      SYNC_API_TOKEN: BENCH_TOKEN,
      LOG_LEVEL: "error",
      ...env,
    }),
    logger: pino({ level: process.env.SYNC_BENCH_LOG_LEVEL ?? "error" }, pino.destination(2)),
  });
}

/** Waits for the service's first cycle and for its matcher to hold what it committed; resolves with the seconds taken. */
export async function untilFirstCycle(service: SyncService): Promise<number> {
  const started = performance.now();
  while (service.engine.status().lastCycle === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
  await service.loop.liveMatcher.refresh();
  return (performance.now() - started) / 1000;
}

/**
 * A float LCG's `pick`, as match-http.bench.ts has always drawn its respondents (it repeats after
 * about 10,000 draws: fine for 500 bodies, not for per-request draws; those use createSeededRandom).
 */
export function lcgPick(seed: number): <T>(items: readonly T[]) => T {
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  return <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
}

/** `count` match bodies of respondents from the catalogue: one answer per question with options, a language and a device. */
export function matchBodies(pick: <T>(items: readonly T[]) => T, count = 500): string[] {
  const devices = ["desktop", "mobile", "tablet"] as const;
  return Array.from({ length: count }, () => {
    const answers: Record<string, string[]> = {};
    for (const question of qualificationCatalogue)
      if (question.Options.length > 0) answers[String(question.Id)] = [String(pick(question.Options).OptionCode)];
    return JSON.stringify({ answers, languageId: pick(languages).Id, device: pick(devices) });
  });
}
