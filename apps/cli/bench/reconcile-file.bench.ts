/**
 * Memory and throughput of `sds outcomes reconcile` on a large file: generates a reconciliation
 * CSV of SDS_BENCH_LINES lines (default 1,000,000), then runs the built CLI under
 * `/usr/bin/time -v` with `-o ndjson` (SDS_BENCH_OUTPUT for another format) against a stand-in
 * for sds-sync on a free port, which answers each line as sds-sync would (a change, every third
 * an unknown token) so that the figures are the CLI's own: reading, checking, digesting, sending,
 * printing. Prints lines per second and the CLI's peak resident memory.
 *
 * Run with `pnpm --filter @sds/cli bench:reconcile` after a build. Set SDS_BENCH_BINARY to
 * measure another build (the one on main, for a before/after).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchLines, measureRun, requireBuild, startStandIn, writeLinesFile } from "./file-bench.ts";

const outcomes = ["complete", "terminate", "overquota", "security"] as const;
const output = process.env.SDS_BENCH_OUTPUT ?? "ndjson";

requireBuild();
const directory = mkdtempSync(join(tmpdir(), "sds-bench-reconcile-"));
try {
  const file = join(directory, "reconcile.csv");
  await writeLinesFile(
    file,
    "token,outcome,reason",
    benchLines,
    (index) => `token-${index},${outcomes[index % outcomes.length]},${index % 2 === 0 ? "quality review" : ""}`,
  );
  let received = 0;
  let sequence = 0;
  const standIn = await startStandIn((body) => {
    const lines = (body as { outcomes: { token: string; outcome: string }[] }).outcomes;
    received += lines.length;
    const results = lines.map((line, index) =>
      index % 3 === 2
        ? { token: line.token, status: "unknown-token", previousOutcome: null, outcome: line.outcome, sequence: null }
        : { token: line.token, status: "changed", previousOutcome: null, outcome: line.outcome, sequence: ++sequence },
    );
    const unknown = results.filter((result) => result.status === "unknown-token").length;
    return { dryRun: false, changed: results.length - unknown, unchanged: 0, unknown, results };
  });
  try {
    await measureRun(file, ["outcomes", "reconcile", file, "--sync-url", standIn.url, "-o", output]);
  } finally {
    standIn.close();
  }
  console.log(`sent:        ${received.toLocaleString("en")} lines (-o ${output})`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
