/**
 * Lists 10,000 surveys over loopback from the fake service, with the client (full validation)
 * and with bare `fetch` + `JSON.parse`, in the same run, and prints the medians and their
 * ratio. Target: the client at most 1.3 times the bare time.
 *
 * The machine is shared, so each round runs every contender once, in rotating order, after a
 * garbage collection (so no contender pays for another's garbage), and the ratio is also given
 * as the median of the per-round ratios, which cancels load that drifts between rounds. Beside
 * wall time, the main thread's CPU time is measured (`process.threadCpuUsage`, Node >= 23.9):
 * it leaves out the time other processes took the CPU away, the main noise on a busy machine.
 * The fake serves from the same thread, so both columns include its work for every contender.
 *
 * Run: pnpm --filter @sds/client bench
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createClient, type ValidationMode } from "@sds/client";
import { createFakeSupplierApi } from "@sds/testing";

const surveyCount = 10_000;
const warmups = 5;
const rounds = 61;
const apiKey = "bench-key-0123456789";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const api = createFakeSupplierApi({ seed: 42, suppliers: [{ supplierId: 1001, apiKey, surveys: surveyCount }] });
const server = await api.listen({ port: 0 });
const clientFor = (validation: ValidationMode) =>
  createClient({ baseUrl: server.baseUrl, apiKey, validation, retry: false });
const loose = clientFor("loose");
const strict = clientFor("strict");
const unchecked = clientFor("off");

const bareName = "bare fetch + JSON.parse";
const clientName = "client, validation loose (default)";
const contenders: Record<string, () => Promise<number>> = {
  [bareName]: async () => {
    const response = await fetch(`${server.baseUrl}/surveys`, {
      headers: { "EQ-PARTNER-ACCESS-KEY": apiKey, accept: "application/json" },
    });
    const body = JSON.parse(await response.text()) as { Surveys: unknown[] };
    return body.Surveys.length;
  },
  [clientName]: async () => (await loose.surveys.list()).Surveys.length,
  "client, listItemwise": async () => (await loose.surveys.listItemwise()).data.Surveys.length,
  "client, stream (item by item)": async () => {
    let count = 0;
    for await (const { survey } of loose.surveys.stream()) if (survey) count += 1;
    return count;
  },
  "client, validation strict": async () => (await strict.surveys.list()).Surveys.length,
  "client, validation off": async () => (await unchecked.surveys.list()).Surveys.length,
};

const entries = Object.entries(contenders);
const samples = new Map<string, number[]>(entries.map(([name]) => [name, []]));
const cpuSamples = new Map<string, number[]>(entries.map(([name]) => [name, []]));
// `process.threadCpuUsage` arrived in Node 23.9; on older Node the CPU columns read NaN.
const threadCpu = (): number => {
  if (typeof process.threadCpuUsage !== "function") return Number.NaN;
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};
try {
  for (let round = 0; round < warmups + rounds; round++) {
    for (let offset = 0; offset < entries.length; offset++) {
      const [name, run] = entries[(round + offset) % entries.length] as [string, () => Promise<number>];
      collectGarbage();
      const started = performance.now();
      const cpuStarted = threadCpu();
      const count = await run();
      const elapsed = performance.now() - started;
      const cpu = threadCpu() - cpuStarted;
      if (count !== surveyCount) throw new Error(`${name} listed ${count} surveys, expected ${surveyCount}`);
      if (round >= warmups) {
        samples.get(name)?.push(elapsed);
        cpuSamples.get(name)?.push(cpu);
      }
    }
  }
} finally {
  await server.close();
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const timesOf = (name: string, from = samples): number[] => from.get(name) ?? [];
const pairedRatio = (name: string, from = samples): number =>
  median(timesOf(name, from).map((time, round) => time / (timesOf(bareName, from)[round] ?? Number.NaN)));

const bare = median(timesOf(bareName));
const bareCpu = median(timesOf(bareName, cpuSamples));
console.log(
  `List ${surveyCount} surveys over loopback: ${rounds} rounds after ${warmups} warm-ups (Node ${process.version})`,
);
console.log(`  ${"".padEnd(36)}   wall median   ratio   round ratios |   CPU median   ratio   round ratios`);
for (const [name] of entries) {
  const wall = median(timesOf(name));
  const cpu = median(timesOf(name, cpuSamples));
  console.log(
    `  ${name.padEnd(36)} ${wall.toFixed(1).padStart(9)} ms  ${(wall / bare).toFixed(2)}x  ${pairedRatio(name).toFixed(2).padStart(12)}x |` +
      ` ${cpu.toFixed(1).padStart(9)} ms  ${(cpu / bareCpu).toFixed(2)}x  ${pairedRatio(name, cpuSamples).toFixed(2).padStart(12)}x`,
  );
}
const wallRatio = median(timesOf(clientName)) / bare;
const cpuRatio = median(timesOf(clientName, cpuSamples)) / bareCpu;
console.log(
  `Client with full validation / bare fetch + JSON.parse: ${wallRatio.toFixed(2)}x wall, ${cpuRatio.toFixed(2)}x CPU (target <= 1.30x: ${wallRatio <= 1.3 ? "met" : "NOT met"} on wall time, ${cpuRatio <= 1.3 ? "met" : "NOT met"} on CPU time)`,
);
