import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  RECONTACT_STUDY_TYPE_ID,
  type MarketplaceSimulation,
} from "@sds/testing";
import { pino } from "pino";
import { loadConfig } from "../src/config/config.ts";
import { routingDataReport } from "../src/loop/loop-status.ts";
import { startSyncService, type SyncService } from "../src/service.ts";

/** The settings a bench run may pass through to sds-sync from its own environment (yield ranking's knobs). */
const PASSED_THROUGH = [
  "SYNC_YIELD_PRIOR_STRENGTH",
  "SYNC_YIELD_CUTOFF_ENTRIES",
  "SYNC_YIELD_COOLDOWN_SECONDS",
  "SYNC_STATS_REFRESH_SECONDS",
] as const;

/** A fresh sds-sync (SQLite in a temporary directory) that holds a simulation's surveys, and its fake upstream. */
export interface SimulationService {
  readonly service: SyncService;
  /** Surveys whose Get Survey Stats was read (the yield prior's source is `marketplace` for these). */
  readonly statsRead: number;
  close(): Promise<void>;
}

async function waitUntil(what: string, ready: () => boolean, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!ready()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts the fake publishing exactly the simulation's surveys (outcome signatures off: the bench
 * plays the marketplace's S2S calls unsigned) and a fresh sds-sync against it, then waits until
 * the matcher holds every survey, the account was read, the re-contact lists were read and, unless stats are off
 * (`SYNC_STATS_REFRESH_SECONDS=0`), the stats of every survey are in the store.
 */
export async function startSimulationService(
  simulation: MarketplaceSimulation,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SimulationService> {
  const api = createFakeSupplierApi({
    seed: simulation.seed,
    suppliers: [
      simulation.supplier({
        supplierId: DEFAULT_SUPPLIER_ID,
        apiKey: DEFAULT_API_KEY,
        account: {
          OutgoingEncryption: { Enabled: false, Algorithm: "SHA256", QueryParameter: "hash", EncryptionKey: null },
        },
      }),
    ],
    requestLogLimit: 10,
  });
  const fake = await api.listen();
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-yield-bench-"));
  const passed = Object.fromEntries(
    PASSED_THROUGH.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
  );
  const service = await startSyncService({
    config: loadConfig({
      SDS_BASE_URL: fake.baseUrl,
      SDS_API_KEY: DEFAULT_API_KEY,
      DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
      SYNC_INTERVAL: "3600",
      SYNC_CONCURRENCY: "8",
      PORT: "0",
      LOG_LEVEL: "silent",
      ...passed,
    }),
    logger: pino({ level: "silent" }),
  });
  const close = async () => {
    await service.stop();
    await fake.close();
    await api.close();
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const surveys = simulation.surveys.length;
    await waitUntil("the first cycle", () => service.engine.status().lastCycle !== undefined);
    await service.loop.liveMatcher.refresh();
    await waitUntil(`the matcher to hold ${surveys} surveys`, () => service.loop.liveMatcher.matcher.size >= surveys);
    await waitUntil("the account settings", () => service.loop.account.verdicts !== undefined);
    // Until the leader has read the StudyTypes collection and the re-contact lists, re-contact studies are routed to anyone.
    const recontact = simulation.surveys.filter(({ survey }) => survey.StudyTypeId === RECONTACT_STUDY_TYPE_ID).length;
    await waitUntil(`the re-contact lists of ${recontact} studies`, () => {
      const read = routingDataReport(service.loop).recontact;
      return read.studies + read.unavailable >= recontact;
    });
    const statsOff = env.SYNC_STATS_REFRESH_SECONDS === "0";
    // The leader fetches the stats after its cycle; every replica reads them from the store every 2 s.
    if (!statsOff) await waitUntil(`the stats of ${surveys} surveys`, () => statsRead(service) >= surveys);
    return { service, statsRead: statsRead(service), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Surveys whose stats this replica's matcher holds. */
function statsRead(service: SyncService): number {
  return routingDataReport(service.loop).stats.surveys;
}
