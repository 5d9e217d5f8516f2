/**
 * Memory and throughput of `sds respondents import` on a large file: generates a history CSV
 * of SDS_BENCH_LINES lines (default 1,000,000), then runs the built CLI under `/usr/bin/time -v`
 * against a stand-in for sds-sync on a free port (it counts what it receives and answers as
 * sds-sync does, so that the figures are the CLI's own: reading, checking, sending). Prints
 * lines per second and the CLI's peak resident memory.
 *
 * Run with `pnpm --filter @sds/cli bench:import` after a build. Set SDS_BENCH_BINARY to measure
 * another build (the one on main, for a before/after).
 */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const binary = process.env.SDS_BENCH_BINARY ?? fileURLToPath(new URL("../dist/sds.js", import.meta.url));
const lines = Number(process.env.SDS_BENCH_LINES ?? 1_000_000);

if (!existsSync(binary)) {
  console.error(`No build at ${binary}: run \`pnpm --filter @sds/cli build\` first.`);
  process.exit(1);
}

const directory = mkdtempSync(join(tmpdir(), "sds-bench-import-"));
try {
  const file = join(directory, "history.csv");
  await writeHistory(file, lines);
  let received = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const { entries } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { entries: unknown[] };
      received += entries.length;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ imported: entries.length, skipped: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;

  const started = process.hrtime.bigint();
  const { code, stderr } = await run("/usr/bin/time", [
    "-v",
    process.execPath,
    binary,
    "respondents",
    "import",
    file,
    "--sync-url",
    url,
    "-o",
    "json",
  ]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  server.close();
  const peakKilobytes = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  if (code !== 0) throw new Error(`sds exited with ${code}:\n${stderr}`);
  console.log(`file:        ${lines.toLocaleString("en")} lines, ${(statSync(file).size / 1e6).toFixed(1)} MB`);
  console.log(`sent:        ${received.toLocaleString("en")} entries`);
  console.log(`time:        ${seconds.toFixed(1)} s (${Math.round(lines / seconds).toLocaleString("en")} lines/s)`);
  console.log(`peak memory: ${(peakKilobytes / 1024).toFixed(0)} MiB (maximum resident set size of sds)`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}

/** A history CSV of `count` entries, each its own respondent, written as a stream. */
async function writeHistory(path: string, count: number): Promise<void> {
  const stream = createWriteStream(path);
  const write = (text: string) =>
    stream.write(text) ? Promise.resolve() : new Promise<void>((resolve) => stream.once("drain", resolve));
  await write("uid,surveyId,enteredAt,outcome\n");
  const base = Date.parse("2026-01-05T10:00:00Z");
  let batch = "";
  for (let index = 0; index < count; index++) {
    const enteredAt = new Date(base + index * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    batch += `respondent-${index},${100_000 + (index % 500)},${enteredAt},${index % 3 === 0 ? "complete" : ""}\n`;
    if (batch.length > 1 << 16) {
      await write(batch);
      batch = "";
    }
  }
  await write(batch);
  await new Promise<void>((resolve, reject) =>
    stream.end((error?: Error | null) => {
      if (error) reject(error);
      else resolve();
    }),
  );
}

function run(command: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code) => {
      resolve({ code, stderr });
    });
  });
}
