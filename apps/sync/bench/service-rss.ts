/**
 * The peak resident set size of sds-sync as operators run it: the built bin (`dist/main.js`)
 * started with no flags against a fake with a fresh SQLite file; its start-up cycle is the first
 * cycle, then a full read of `GET /v1/surveys` (every page of 1,000, `status=all`), then one more
 * cycle (no upstream change) through `POST /v1/sync/run`. The peak is that of the whole process
 * tree the bin starts: the larger of the started process's kernel high-water mark (`VmHWM` in
 * `/proc/PID/status`, which survives the bin's re-exec with its heap flags) and the largest sum of
 * `VmRSS` over the process and its descendants, sampled every 50 ms (Linux only).
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
  /** Surveys read back through every page of `GET /v1/surveys`. */
  readonly surveysRead: number;
  /** Processes in the tree at the largest sample (1: the bin re-executed itself in place). */
  readonly processes: number;
}

interface RunJson {
  readonly status: string;
  readonly trigger?: string;
  readonly durationMs: number;
  readonly counts: { readonly listed: number; readonly upstreamRequests: number };
}

const mainScript = fileURLToPath(new URL("../dist/main.js", import.meta.url));

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  // A GET is retried on a reset connection: a keep-alive socket that the service closed while its
  // event loop was busy with the cycle is not what this measures.
  for (let attempt = 1; ; attempt += 1) {
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (init?.method === undefined && attempt < 3) continue;
      throw new Error(`${init?.method ?? "GET"} ${url}: ${String(error)}`, { cause: error });
    }
    if (!response.ok)
      throw new Error(`${init?.method ?? "GET"} ${url}: HTTP ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }
}

function procStatusKb(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? 0);
  } catch {
    return 0; // the process is gone, or is a zombie without memory
  }
}

function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  } catch {
    // gone meanwhile
  }
  return [pid, ...children.flatMap((child) => processTree(child))];
}

/** Samples the RSS of the tree under `pid` until stopped; reports the largest sum and the tree's size then. */
function sampleTree(pid: number): () => { maxKb: number; processes: number } {
  let maxKb = 0;
  let processes = 1;
  const sample = () => {
    const tree = processTree(pid);
    const kb = tree.reduce((sum, member) => sum + procStatusKb(member, "VmRSS"), 0);
    if (kb > maxKb) {
      maxKb = kb;
      processes = tree.length;
    }
  };
  const timer = setInterval(sample, 50);
  return () => {
    sample();
    clearInterval(timer);
    return { maxKb: Math.max(maxKb, procStatusKb(pid, "VmHWM")), processes };
  };
}

/** Reads every page of the survey list; returns how many surveys it held. */
async function readAllSurveys(url: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page: { surveys: unknown[]; nextCursor: string | null } = await getJson(
      `${url}/v1/surveys?status=all&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    count += page.surveys.length;
    cursor = page.nextCursor;
  } while (cursor);
  return count;
}

/** Runs the built service with `nodeFlags` against the fake at `baseUrl` and reports its peak RSS. */
export async function measureServiceRss(
  baseUrl: string,
  nodeFlags: readonly string[],
  concurrency: number,
): Promise<ServiceRssReport> {
  if (!existsSync(mainScript))
    throw new Error(`${mainScript} is missing: build sds-sync first (pnpm --filter @sds/sync build)`);
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
  const stopSampling = sampleTree(child.pid ?? 0);
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
    const surveysRead = await readAllSurveys(url);
    const { run: second } = await getJson<{ run: RunJson }>(`${url}/v1/sync/run`, { method: "POST" });
    const { maxKb, processes } = stopSampling();
    return {
      maxRssMb: maxKb / 1024,
      firstCycleMs: first.durationMs,
      firstCycleRequests: first.counts.upstreamRequests,
      noChangeMs: second.durationMs,
      surveys: first.counts.listed,
      surveysRead,
      processes,
    };
  } finally {
    stopSampling();
    child.kill("SIGTERM");
    await exited;
    rmSync(directory, { recursive: true, force: true });
  }
}
