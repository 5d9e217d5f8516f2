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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchLines, measureRun, requireBuild, startStandIn, writeLinesFile } from "./file-bench.ts";

requireBuild();
const directory = mkdtempSync(join(tmpdir(), "sds-bench-import-"));
try {
  const file = join(directory, "history.csv");
  const base = Date.parse("2026-01-05T10:00:00Z");
  await writeLinesFile(file, "uid,surveyId,enteredAt,outcome", benchLines, (index) => {
    const enteredAt = new Date(base + index * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    return `respondent-${index},${100_000 + (index % 500)},${enteredAt},${index % 3 === 0 ? "complete" : ""}`;
  });
  let received = 0;
  const standIn = await startStandIn((body) => {
    const { entries } = body as { entries: unknown[] };
    received += entries.length;
    return { imported: entries.length, skipped: 0 };
  });
  try {
    await measureRun(file, ["respondents", "import", file, "--sync-url", standIn.url, "-o", "json"]);
  } finally {
    standIn.close();
  }
  console.log(`sent:        ${received.toLocaleString("en")} entries`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
