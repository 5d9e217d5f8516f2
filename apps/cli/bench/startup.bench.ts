/**
 * Start-up benchmark of the built CLI: medians of `sds --version`, `sds --help` and the help of
 * commands against bare `node -e 0`, measured in the same run (timings are noisy; compare the
 * ratios). The goal: a command's help costs at most 1.5× `sds --version`.
 *
 * Run with `pnpm --filter @sds/cli bench` after a build.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const binary = fileURLToPath(new URL("../dist/sds.js", import.meta.url));
const runs = Number(process.env.SDS_BENCH_RUNS ?? 20);

if (!existsSync(binary)) {
  console.error(`No build at ${binary}: run \`pnpm --filter @sds/cli build\` first.`);
  process.exit(1);
}

const cases: readonly { readonly name: string; readonly args: readonly string[] }[] = [
  { name: "node -e 0", args: ["-e", "0"] },
  { name: "sds --version", args: [binary, "--version"] },
  { name: "sds --help", args: [binary, "--help"] },
  { name: "sds help surveys list", args: [binary, "help", "surveys", "list"] },
  { name: "sds export --help", args: [binary, "export", "--help"] },
];

function timeOnce(args: readonly string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0)
    throw new Error(`node ${args.join(" ")} exited with ${String(result.status)}: ${result.stderr.toString()}`);
  return elapsed;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

// Warm the file cache once, then interleave the cases so drift on a shared machine hits all alike.
for (const benchCase of cases) timeOnce(benchCase.args);
const samples = new Map(cases.map((benchCase) => [benchCase.name, [] as number[]]));
for (let run = 0; run < runs; run++)
  for (const benchCase of cases) samples.get(benchCase.name)?.push(timeOnce(benchCase.args));

const baseline = median(samples.get("node -e 0") ?? []);
const version = median(samples.get("sds --version") ?? []);
console.log(`start-up, median of ${runs} runs (Node ${process.version}):`);
for (const benchCase of cases) {
  const value = median(samples.get(benchCase.name) ?? []);
  console.log(
    `  ${benchCase.name.padEnd(22)} ${value.toFixed(1).padStart(7)} ms   ${(value / baseline).toFixed(2)}× node -e 0   ${(value / version).toFixed(2)}× sds --version`,
  );
}
