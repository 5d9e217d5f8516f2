/**
 * The peak resident set size of sds-sync as operators run it: the built service (`dist/main.js`)
 * started against a fake with a fresh SQLite file; its start-up cycle is the first cycle, then one
 * more cycle (no upstream change) through `POST /v1/sync/run`. The peak is the kernel's
 * high-water mark of the process (`VmHWM` in `/proc/PID/status`, so Linux only).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DEFAULT_API_KEY } from "@sds/testing";

/** What one measured service run reports. */
export interface ServiceRssReport {
  readonly maxRssMb: number;
  readonly firstCycleMs: number;
  readonly firstCycleRequests: number;
  readonly noChangeMs: number;
  readonly surveys: number;
}

interface RunJson {
  readonly status: string;
  readonly trigger?: string;
  readonly durationMs: number;
  readonly counts: { readonly listed: number; readonly upstreamRequests: number };
}

const mainScript = fileURLToPath(new URL("../dist/main.js", import.meta.url));

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${url}: HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** Runs the built service with `nodeFlags` against the fake at `baseUrl` and reports its peak RSS. */
export async function measureServiceRss(baseUrl: string, nodeFlags: readonly string[], concurrency: number): Promise<ServiceRssReport> {
  if (!existsSync(mainScript)) throw new Error(`${mainScript} is missing: build sds-sync first (pnpm --filter @sds/sync build)`);
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-rss-"));
  const child = spawn(process.execPath, [...nodeFlags, mainScript], {
    env: {
      ...process.env,
      NODE_OPTIONS: "",
      SDS_BASE_URL: baseUrl,
      SDS_API_KEY: DEFAULT_API_KEY,
      DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
      SYNC_INTERVAL: "86400",
      SYNC_CONCURRENCY: String(concurrency),
      PORT: "0",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on("line", (line) => {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "sds-sync listening" && entry.url) resolve(entry.url);
      });
      void exited.then((code) => {
        reject(new Error(`sds-sync exited with ${code} before listening`));
      });
    });
    let first: RunJson | undefined;
    while (!first) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const { runs } = await getJson<{ runs: RunJson[] }>(`${url}/v1/sync/status`);
      first = runs.find((run) => run.trigger === "startup");
      if (first && first.status !== "succeeded") throw new Error(`the first cycle failed: ${JSON.stringify(first)}`);
    }
    const { run: second } = await getJson<{ run: RunJson }>(`${url}/v1/sync/run`, { method: "POST" });
    const status = readFileSync(`/proc/${child.pid ?? 0}/status`, "utf8");
    const hwmKb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN);
    return { maxRssMb: hwmKb / 1024, firstCycleMs: first.durationMs, firstCycleRequests: first.counts.upstreamRequests, noChangeMs: second.durationMs, surveys: first.counts.listed };
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(directory, { recursive: true, force: true });
  }
}
