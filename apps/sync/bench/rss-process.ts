/**
 * Reports the peak resident set size of a process that either runs a first cycle and a
 * no-change cycle (`sync`), or only fetches and parses the live list with bare fetch (`list`):
 * the memory sds-sync needs for an inventory, beside what the list alone costs.
 */
import { DEFAULT_API_KEY } from "@sds/testing";
import { createSyncRunner } from "./sync-runner.ts";

const [baseUrl = "", concurrency = "8", mode = "sync"] = process.argv.slice(2);
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

if (mode === "list") {
  const response = await fetch(`${baseUrl}/surveys`, { headers: { "EQ-PARTNER-ACCESS-KEY": DEFAULT_API_KEY } });
  const body = JSON.parse(await response.text()) as { Surveys: unknown[] };
  process.send?.({ maxRssMb: maxRssMb(), firstCycleMs: 0, firstCycleRequests: 1, noChangeMs: 0, surveys: body.Surveys.length });
} else {
  const runner = await createSyncRunner(baseUrl, Number(concurrency));
  const first = await runner.cycle();
  const noChange = await runner.cycle();
  await runner.close();
  process.send?.({
    maxRssMb: maxRssMb(),
    firstCycleMs: first.ms,
    firstCycleRequests: first.requests,
    noChangeMs: noChange.ms,
    surveys: first.result.counts.listed,
  });
}
process.disconnect();
