import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, createFakeSupplierApi, type FakeServer } from "@sds/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { startSyncService } from "../src/service.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { startServiceHarness } from "./service-harness.ts";
import { emptyCommit, qualificationsOf, sampleSurvey, surveyWrite } from "./store-fixtures.ts";

/*
 * A stop asked for while sds-sync starts, in-process: the service's `afterStoreOpen` hook is the
 * moment inside start (store open and migrated, matcher not loaded yet) where the test asks for
 * the stop, through the same `startSignal` the entry point aborts on SIGTERM (run-service.ts).
 * The built bin, its re-exec and real signals are the system tier's (signal-during-start.system.test.ts).
 */

let api: ReturnType<typeof createFakeSupplierApi>;
let fake: FakeServer;
let directory: string;

beforeAll(async () => {
  api = createFakeSupplierApi({
    suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 5 }],
  });
  fake = await api.listen();
  directory = mkdtempSync(join(tmpdir(), "sds-sync-stop-during-start-"));
});

afterAll(async () => {
  await fake.close();
  await api.close();
  rmSync(directory, { recursive: true, force: true });
});

function configFor(database: string, baseUrl = fake.baseUrl): SyncConfig {
  return {
    baseUrl,
    apiKey: DEFAULT_API_KEY,
    database: { kind: "sqlite", path: join(directory, database) },
    intervalSeconds: 3600,
    concurrency: 4,
    port: 0,
    host: "127.0.0.1",
    apiToken: undefined,
    logLevel: "info",
    retentionSeconds: 7 * 24 * 3600,
    cycleTimeoutSeconds: 600,
    maxRecordBytes: 1_048_576,
    maxListBytes: 536_870_912,
    maxClosureShare: 0.25,
    closureConfirmCycles: 3,
    manualRunSpacingSeconds: 0,
  };
}

/** A logger whose messages the test reads. */
function recordingLogger(): { logger: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = pino(
    { level: "info" },
    { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) },
  );
  return { logger, messages };
}

/** Starts the service and asks for a stop once the store is open, before the matcher loads; then stops it. */
async function startAndStopInsideStart(config: SyncConfig): Promise<string[]> {
  const { logger, messages } = recordingLogger();
  const startAbort = new AbortController();
  const service = await startSyncService({
    config,
    logger,
    startSignal: startAbort.signal,
    afterStoreOpen: () => {
      startAbort.abort();
      return Promise.resolve();
    },
  });
  await service.stop();
  return messages;
}

describe("a stop asked for while sds-sync starts", () => {
  it("finishes starting, starts no cycle, stops cleanly, and leaves a store the next start serves from", async () => {
    const messages = await startAndStopInsideStart(configFor("store-open.db"));
    expect(messages).toContain("sds-sync listening");
    expect(messages).toContain("start: a stop was asked for; no sync cycle or pruning pass is started");
    expect(messages).toContain("stopped");
    expect(messages.join("\n")).not.toContain("could not start");

    // The store it left behind opens as it should: the next start migrates nothing and serves.
    const again = await startServiceHarness({ api, database: configFor("store-open.db").database });
    try {
      expect((await again.request("/readyz")).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  it("abandons the matcher's load of a stored inventory, and begins no cycle only to abort it", async () => {
    // A store holding more than two of the matcher's pages (1,000 surveys each), as a restart finds it.
    const store = await openSqliteStore({ path: join(directory, "loaded.db") });
    const surveys = Array.from({ length: 2500 }, (_, index) => sampleSurvey(5000 + index));
    await store.commitCycle(
      emptyCommit(new Date("2026-03-01T00:00:00Z"), {
        surveys: surveys.map((survey) => surveyWrite(survey)),
        qualifications: surveys.map((survey) => qualificationsOf(survey.SurveyId, 1)),
      }),
    );
    await store.close();

    const messages = await startAndStopInsideStart(configFor("loaded.db"));
    expect(messages).toContain("start: a stop was asked for; the matcher's load is abandoned");
    expect(messages).not.toContain("matcher loaded from the store");
    expect(messages).toContain("start: a stop was asked for; no sync cycle or pruning pass is started");
    expect(messages).not.toContain("cycle aborted by shutdown");
    expect(messages).toContain("stopped");
  });

  it("does not wait for the first account read, even when the upstream never answers", async () => {
    // An upstream that accepts connections and never answers: start would wait 5 s for the account settings.
    const sockets = new Set<Socket>();
    const blackHole = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
    const { port } = blackHole.address() as AddressInfo;
    try {
      const messages = await startAndStopInsideStart(configFor("black-hole.db", `http://127.0.0.1:${port}/api/v1`));
      expect(messages).toContain("start: a stop was asked for; not waiting for the account settings");
      expect(messages).toContain("stopped");
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  });
});
