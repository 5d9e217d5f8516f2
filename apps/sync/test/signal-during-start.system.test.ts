import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeServer } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";

/*
 * A SIGTERM while sds-sync starts, against the built bin as an operator runs it: no NODE_OPTIONS,
 * so the entry re-executes itself with the heap flag (process.execve) before the service loads.
 * The spread case signals each of many spawns a little later than the one before, from the
 * moment the process exists to past the end of its start, and checks that wherever a signal
 * lands, the process never dies of it once it has begun to work. The windows it hits only by
 * luck are tested for certain in-process, where hooks reach them: a signal before or while the
 * service's modules load (src/run-unless-stopped.test.ts), and a stop inside start, with the
 * store open and the matcher not loaded (stop-during-start.test.ts). The bin has no test seam.
 */

const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
/** One of the bin's heap flags: present on the command line once the process has re-executed itself. */
const REEXEC_FLAG = "--max-semi-space-size=4";
/** A generous bound for a machine with a load average of 10 and more: only a hang reaches it. */
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
  it("never dies of a SIGTERM sent at any moment of its start, over many spawns: exit 0, or killed before it opened anything", async () => {
    // How long a start takes on this machine now, so that the signals spread over all of it:
    // Node.js's boot, the entry, the re-exec, the service's modules, the store, the matcher.
    const calibration = spawnBin("early-calibration.db");
    const spawnedAt = await spawned(calibration);
    await calibration.url;
    const startMs = performance.now() - spawnedAt;
    // The image that runs the service is the re-executed one: it has the heap flag.
    expect(commandLine(calibration.child.pid)).toContain(REEXEC_FLAG);
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
