/**
 * `GET /v1/surveys?limit=100` over HTTP, side by side with a bare node:http server sending the
 * same bytes (`pnpm --filter @sds/sync bench:list`, also run by `pnpm bench`): sds-sync in this
 * process (SQLite store) after syncing SYNC_BENCH_SURVEYS (2,000) surveys from the fake; the bare
 * server in this process too; autocannon in a child process (SYNC_BENCH_CONNECTIONS, 50, for
 * SYNC_BENCH_SECONDS, 5, each). Target: sds-sync within 3x of the bare server's requests per
 * second. The figures are written to SYNC_BENCH_JSON when set.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { pino } from "pino";
import { loadConfig } from "../src/config/config.ts";
import { startSyncService } from "../src/service.ts";
import type { GetLoadCommand, GetLoadReport } from "./get-load.ts";

const surveys = Number(process.env.SYNC_BENCH_SURVEYS ?? 2_000);
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 50);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 5);
const path = "/v1/surveys?limit=100";

const api = createFakeSupplierApi({
  seed: 11,
  suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys }],
  requestLogLimit: 10,
});
const fake = await api.listen();
const directory = mkdtempSync(join(tmpdir(), "sds-sync-list-bench-"));
const config = loadConfig({
  SDS_BASE_URL: fake.baseUrl,
  SDS_API_KEY: DEFAULT_API_KEY,
  DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
  PORT: "0",
  SYNC_INTERVAL: "3600",
  SYNC_CONCURRENCY: "16",
});
const service = await startSyncService({ config, logger: pino({ level: "silent" }) });
const first = service.engine.status().lastCycle ?? (await service.engine.nextCycle());
if (first.status !== "succeeded") throw new Error(`the first cycle failed: ${first.error ?? "?"}`);

const body = Buffer.from(await (await fetch(`${service.url}${path}`)).arrayBuffer());
const bare = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.byteLength });
  response.end(body);
});
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}${path}`;

function load(url: string, headers: Readonly<Record<string, string>> = {}): Promise<GetLoadReport> {
  const child = fork(fileURLToPath(new URL("get-load.ts", import.meta.url)), { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("message", (report: GetLoadReport) => {
      resolve(report);
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the load generator exited with ${code}`));
    });
    child.send({ url, headers, connections, seconds } satisfies GetLoadCommand);
  });
}

const describe = (name: string, report: GetLoadReport) =>
  `${name.padEnd(34)} ${report.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${String(report.latencyMs.p50).padStart(4)} ms   p99 ${String(report.latencyMs.p99).padStart(4)} ms   (${report.requests} requests, ${report.non2xx} non-2xx, ${report.errors} errors)`;

process.stdout.write(
  `GET ${path}: ${body.byteLength} bytes, ${surveys} surveys stored, ${connections} connections, ${seconds} s each\n`,
);
const bareReport = await load(bareUrl);
process.stdout.write(`${describe("bare node:http, same bytes", bareReport)}\n`);
const serviceReport = await load(`${service.url}${path}`);
process.stdout.write(`${describe("sds-sync", serviceReport)}\n`);
const etag = (await fetch(`${service.url}${path}`)).headers.get("etag");
const notModified = etag === null ? undefined : await load(`${service.url}${path}`, { "if-none-match": etag });
if (notModified) process.stdout.write(`${describe("sds-sync, If-None-Match (304)", notModified)}\n`);
const ratio = bareReport.requestsPerSecond / serviceReport.requestsPerSecond;
process.stdout.write(
  `sds-sync serves ${(1 / ratio).toFixed(2)} x the bare server's throughput: ${ratio.toFixed(2)} x off the floor (target: within 3 x)\n`,
);

if (process.env.SYNC_BENCH_JSON) {
  writeFileSync(
    process.env.SYNC_BENCH_JSON,
    `${JSON.stringify({ path, bytes: body.byteLength, surveys, connections, seconds, bare: bareReport, service: serviceReport, notModified, ratio }, null, 2)}\n`,
  );
}
bare.close();
await service.stop();
await fake.close();
await api.close();
rmSync(directory, { recursive: true, force: true });
