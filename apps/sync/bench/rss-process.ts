/**
 * Runs a first cycle and a no-change cycle in a process of its own, then reports the process's
 * peak resident set size: the memory sds-sync needs for the fake's inventory.
 */
import { createSyncRunner } from "./sync-runner.ts";

const [baseUrl = "", concurrency = "8"] = process.argv.slice(2);
const runner = await createSyncRunner(baseUrl, Number(concurrency));
const first = await runner.cycle();
const noChange = await runner.cycle();
await runner.close();
process.send?.({
  maxRssMb: process.resourceUsage().maxRSS / 1024,
  firstCycleMs: first.ms,
  firstCycleRequests: first.requests,
  noChangeMs: noChange.ms,
  surveys: first.result.counts.listed,
});
process.disconnect();
