import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** sds-sync's entry point from source (run with the `@sds/source` condition): the tests need no build. */
const syncMain = join(dirname(createRequire(import.meta.url).resolve("@sds/sync/package.json")), "src", "main.ts");

/** sds-sync running as a child process on a free port, with a SQLite store in a temporary directory. */
export interface RunningSync {
  /** Its base URL, as `--sync-url` takes it. */
  readonly url: string;
  /** Every line it wrote, for a failing test's message. */
  readonly output: readonly string[];
  /** Calls its API with the token, sending `body` as JSON when given (a POST). */
  request(path: string, body?: unknown): Promise<Response>;
  /** Stops it (SIGTERM) and removes its store. */
  close(): Promise<void>;
}

/** Options of {@link startSync}. */
export interface StartSyncOptions {
  /** The Supplier Data Service it syncs from (a fake's base URL and key). */
  readonly sdsBaseUrl: string;
  readonly sdsApiKey: string;
  /** `SYNC_API_TOKEN` (16 characters or more). */
  readonly apiToken: string;
}

/**
 * Starts sds-sync from source (`node --conditions=@sds/source src/main.ts`) with `PORT=0` and resolves once its log says
 * "sds-sync listening", with the URL from that line.
 */
export async function startSync(options: StartSyncOptions): Promise<RunningSync> {
  const directory = mkdtempSync(join(tmpdir(), "sds-cli-sync-"));
  const child = spawn(process.execPath, ["--conditions=@sds/source", syncMain], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
      SDS_BASE_URL: options.sdsBaseUrl,
      SDS_API_KEY: options.sdsApiKey,
      SYNC_API_TOKEN: options.apiToken,
      SYNC_INTERVAL: "3600",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => {
    child.on("exit", () => {
      resolve();
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
        output.push(line);
        const listening = /"url":"(http:\/\/[^"]+)".*"msg":"sds-sync listening"/.exec(line);
        if (listening?.[1] !== undefined) resolve(listening[1]);
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    void exited.then(() => {
      reject(new Error(`sds-sync exited before listening:\n${output.join("\n")}`));
    });
  });
  return {
    url,
    output,
    request: (path, body) =>
      fetch(`${url}${path}`, {
        headers: { authorization: `Bearer ${options.apiToken}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
      }),
    async close() {
      child.kill("SIGTERM");
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
