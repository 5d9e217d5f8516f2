/**
 * What the benchmarks of a command that sends a large file to sds-sync share: the built CLI to
 * measure, the file written as a stream, a stand-in for sds-sync on a free port, and a run of
 * the CLI under `/usr/bin/time -v` for its peak resident memory.
 */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

/** The build measured: `dist/sds.js`, or SDS_BENCH_BINARY (the build of main, for a before/after). */
export const benchBinary = process.env.SDS_BENCH_BINARY ?? fileURLToPath(new URL("../dist/sds.js", import.meta.url));

/** How many lines the file has: SDS_BENCH_LINES, 1,000,000 by default. */
export const benchLines = Number(process.env.SDS_BENCH_LINES ?? 1_000_000);

/** Stops the process when there is no build to measure. */
export function requireBuild(): void {
  if (existsSync(benchBinary)) return;
  console.error(`No build at ${benchBinary}: run \`pnpm --filter @sds/cli build\` first.`);
  process.exit(1);
}

/** Writes `header` and then `line(index)` for each of `count` lines, as a stream. */
export async function writeLinesFile(
  path: string,
  header: string,
  count: number,
  line: (index: number) => string,
): Promise<void> {
  const stream = createWriteStream(path);
  const write = (text: string) =>
    stream.write(text) ? Promise.resolve() : new Promise<void>((resolve) => stream.once("drain", resolve));
  await write(`${header}\n`);
  let batch = "";
  for (let index = 0; index < count; index++) {
    batch += `${line(index)}\n`;
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

/** A stand-in for sds-sync: answers each POST with `answer(its JSON body)`, as JSON. */
export async function startStandIn(
  answer: (body: unknown) => unknown,
): Promise<{ readonly url: string; close(): void }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = answer(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`,
    close: () => server.close(),
  };
}

/**
 * Runs the built CLI with `args` under `/usr/bin/time -v` (stdout discarded) and prints the
 * file's size, the time with lines per second, and the peak resident memory.
 */
export async function measureRun(file: string, args: readonly string[]): Promise<void> {
  const started = process.hrtime.bigint();
  const { code, stderr } = await run("/usr/bin/time", ["-v", process.execPath, benchBinary, ...args]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`sds exited with ${code}:\n${stderr}`);
  const peakKilobytes = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  console.log(`file:        ${benchLines.toLocaleString("en")} lines, ${(statSync(file).size / 1e6).toFixed(1)} MB`);
  console.log(
    `time:        ${seconds.toFixed(1)} s (${Math.round(benchLines / seconds).toLocaleString("en")} lines/s)`,
  );
  console.log(`peak memory: ${(peakKilobytes / 1024).toFixed(0)} MiB (maximum resident set size of sds)`);
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
