import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeServer } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { TEST_PAUSE_VARIABLE, testPauseLine, type TestPausePoint } from "../src/test-pause.ts";
import { waitFor } from "./harness.ts";
import { emptyCommit, qualificationsOf, sampleSurvey, surveyWrite } from "./store-fixtures.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";

/*
 * A SIGTERM while sds-sync starts, against the built bin as an operator runs it: no NODE_OPTIONS,
 * so the entry re-executes itself with the heap flag (process.execve) before the service loads.
 * The paused cases put the signal inside a window for certain (SDS_SYNC_TEST_PAUSE_AT); the
 * spread case signals each of many spawns a little later than the one before, from the moment
 * the process exists to past the end of its start, and checks that wherever a signal lands, the
 * process never dies of it once it has begun to work.
 */

const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
/** One of the bin's heap flags: present on the command line once the process has re-executed itself. */
const REEXEC_FLAG = "--max-semi-space-size=4";
/** Generous bounds for a machine with a load average of 10 and more: only a hang reaches them. */
const PAUSE_WAIT_MS = 60_000;
const EXIT_WAIT_MS = 60_000;

let fake: FakeServer;
let api: ReturnType<typeof createFakeSupplierApi>;
let directory: string;

beforeAll(async () => {
  api = createFakeSupplierApi({
    suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 5 }],
  });
  fake = await api.listen();
  directory = mkdtempSync(join(tmpdir(), "sds-sync-signal-"));
});

afterAll(async () => {
  await fake.close();
  await api.close();
  rmSync(directory, { recursive: true, force: true });
});

function spawnBin(database: string, env: Readonly<Record<string, string>> = {}): ServiceProcess {
  return spawnService(
    {
      SDS_BASE_URL: fake.baseUrl,
      SDS_API_KEY: DEFAULT_API_KEY,
      DATABASE_URL: `sqlite:${join(directory, database)}`,
      ...env,
    },
    [],
    { command: [process.execPath, BIN] },
  );
}

/** How the process ended, once its output is read to the end ("close", not "exit": a pipe may still hold lines). */
async function exitOf(
  service: ServiceProcess,
): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }> {
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const closed = new Promise<void>((resolve) => {
    service.child.once("close", () => {
      resolve();
    });
  });
  void Promise.all([service.exited, closed]).then(([value]) => {
    exit = value;
  });
  try {
    await waitFor(() => exit !== undefined, EXIT_WAIT_MS);
  } catch {
    service.child.kill("SIGKILL");
    throw new Error(`sds-sync did not exit after SIGTERM (the signal was lost):\n${service.output.join("\n")}`);
  }
  return exit as NonNullable<typeof exit>;
}

/** For the test's report: which window of start a signal landed in, told by what the process wrote. */
function whereTheSignalLanded(output: string): string {
  if (output === "") return "during Node.js's boot";
  if (output.includes("before start: not starting")) return "before start";
  if (output.includes("signal received while starting")) return "while starting";
  if (output.includes('"msg":"signal received: shutting down"')) return "after start";
  return "elsewhere";
}

/** Resolves with the moment the process exists. */
async function spawned(service: ServiceProcess): Promise<number> {
  await new Promise((resolve) => service.child.once("spawn", resolve));
  return performance.now();
}

function commandLine(pid: number | undefined): string[] {
  return readFileSync(`/proc/${pid ?? 0}/cmdline`, "utf8").split("\0");
}

describe.skipIf(process.platform !== "linux")("a SIGTERM while sds-sync starts (the built bin)", () => {
  it.each<[TestPausePoint, string, boolean]>([
    // The first image re-executes itself before it catches anything, so both points are in the image that runs the service.
    ["entry", "in the entry module, just after the stop signals are caught", true],
    ["service-import", "in the re-executed image, before the service's modules load", true],
  ])(
    "exits 0 without starting when the signal arrives %s (%s)",
    async (point, _where, reexecuted) => {
      const service = spawnBin(`${point}.db`, { [TEST_PAUSE_VARIABLE]: point });
      await waitFor(() => service.output.includes(testPauseLine(point)), PAUSE_WAIT_MS);
      // Which image is paused: the first one has no heap flag, the re-executed one has it.
      expect(commandLine(service.child.pid).includes(REEXEC_FLAG)).toBe(reexecuted);
      service.child.kill("SIGTERM");
      const exit = await exitOf(service);
      expect(exit, service.output.join("\n")).toEqual({ code: 0, signal: null });
      expect(service.output).toContain("sds-sync: SIGTERM received before start: not starting");
      expect(service.output.join("\n")).not.toContain("starting sds-sync");
    },
    150_000,
  );

  it("finishes starting, then stops cleanly with exit 0, when the signal arrives inside start (store migrated, matcher not loaded)", async () => {
    const service = spawnBin("store-open.db", { [TEST_PAUSE_VARIABLE]: "store-open" });
    await waitFor(() => service.output.includes(testPauseLine("store-open")), PAUSE_WAIT_MS);
    expect(commandLine(service.child.pid)).toContain(REEXEC_FLAG);
    service.child.kill("SIGTERM");
    const exit = await exitOf(service);
    const output = service.output.join("\n");
    expect(exit, output).toEqual({ code: 0, signal: null });
    expect(output).toContain("signal received while starting: shutting down once start completes");
    expect(output).toContain('"msg":"sds-sync listening"');
    expect(output).toContain('"msg":"stopped"');
    expect(output).not.toContain("could not start");

    // The store it left behind opens as it should: the next start migrates nothing and serves.
    const again = spawnBin("store-open.db");
    const url = await again.url;
    await waitFor(async () => (await fetch(`${url}/readyz`)).ok, PAUSE_WAIT_MS);
    again.child.kill("SIGTERM");
    expect(await exitOf(again)).toEqual({ code: 0, signal: null });
  }, 150_000);

  it("abandons the matcher's load of a stored inventory once the signal has arrived, and stops cleanly", async () => {
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

    const service = spawnBin("loaded.db", { [TEST_PAUSE_VARIABLE]: "store-open" });
    await waitFor(() => service.output.includes(testPauseLine("store-open")), PAUSE_WAIT_MS);
    service.child.kill("SIGTERM");
    const exit = await exitOf(service);
    const output = service.output.join("\n");
    expect(exit, output).toEqual({ code: 0, signal: null });
    expect(output).toContain("start: a stop was asked for; the matcher's load is abandoned");
    expect(output).not.toContain("matcher loaded from the store");
    // Nor does a cycle begin, only to be aborted: the service is stopping.
    expect(output).toContain("start: a stop was asked for; no sync cycle or pruning pass is started");
    expect(output).not.toContain("cycle aborted by shutdown");
    expect(output).toContain('"msg":"stopped"');
  }, 150_000);

  it("does not wait for the first account read once the signal has arrived, even when the upstream never answers", async () => {
    // An upstream that accepts connections and never answers: start would wait 5 s for the account settings.
    const sockets = new Set<Socket>();
    const blackHole = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
    const { port } = blackHole.address() as AddressInfo;
    try {
      const service = spawnService(
        {
          SDS_BASE_URL: `http://127.0.0.1:${port}/api/v1`,
          SDS_API_KEY: DEFAULT_API_KEY,
          DATABASE_URL: `sqlite:${join(directory, "black-hole.db")}`,
          [TEST_PAUSE_VARIABLE]: "store-open",
        },
        [],
        { command: [process.execPath, BIN] },
      );
      await waitFor(() => service.output.includes(testPauseLine("store-open")), PAUSE_WAIT_MS);
      service.child.kill("SIGTERM");
      const exit = await exitOf(service);
      const output = service.output.join("\n");
      expect(exit, output).toEqual({ code: 0, signal: null });
      expect(output).toContain("start: a stop was asked for; not waiting for the account settings");
      expect(output).toContain('"msg":"stopped"');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  }, 150_000);

  it("never dies of a SIGTERM sent at any moment of its start, over many spawns: exit 0, or killed before it opened anything", async () => {
    // How long a start takes on this machine now, so that the signals spread over all of it:
    // Node.js's boot, the entry, the re-exec, the service's modules, the store, the matcher.
    const calibration = spawnBin("early-calibration.db");
    const spawnedAt = await spawned(calibration);
    await calibration.url;
    const startMs = performance.now() - spawnedAt;
    calibration.child.kill("SIGTERM");
    expect(await exitOf(calibration)).toEqual({ code: 0, signal: null });

    const SPAWNS = 24;
    const outcomes: string[] = [];
    for (let index = 0; index < SPAWNS; index += 1) {
      const database = `early-${index}.db`;
      const service = spawnBin(database);
      await spawned(service);
      const delayMs = Math.round((index * 1.2 * startMs) / (SPAWNS - 1));
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      service.child.kill("SIGTERM");
      const exit = await exitOf(service);
      const output = service.output.join("\n");
      outcomes.push(`${delayMs} ms: ${JSON.stringify(exit)} ${whereTheSignalLanded(output)}`);
      if (exit.signal === "SIGTERM") {
        // Only Node.js's own boot is outside any handler's reach: then nothing was opened. The
        // store's file tells, not the output: log lines still buffered when a signal kills are lost.
        expect(
          existsSync(join(directory, database)),
          `spawn ${index} (${delayMs} ms) died of SIGTERM after it had opened the store`,
        ).toBe(false);
      } else {
        expect(exit, `spawn ${index} (${delayMs} ms):\n${output}`).toEqual({ code: 0, signal: null });
        expect(output).not.toContain("could not start");
      }
    }
    console.info(`a start took ${Math.round(startMs)} ms; where each SIGTERM landed:\n${outcomes.join("\n")}`);
  }, 300_000);
});
