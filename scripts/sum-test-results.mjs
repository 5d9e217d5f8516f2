// Sums every package's Vitest JSON reports (the fast tier, the system tier and the run on the
// Node floor) into the one closing line CI reads: "N passed, M failed, K skipped".
// Exits non-zero when a report is missing or no test ran, so an empty run cannot pass.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const group of ["packages", "apps", "tooling"]) {
  for (const name of readdirSync(group)) {
    const dir = join(group, name);
    if (!existsSync(join(dir, "package.json"))) continue;
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    // `test` (the fast tier) writes test-results.json; `test:system` (the system tier) its own.
    const runs = [
      ["test", "test-results.json"],
      ["test:system", "system-test-results.json"],
    ].filter(([script]) => pkg.scripts?.[script]);
    // The same suite again on the lowest supported Node (scripts/test-node-floor.sh), when it ran.
    if (existsSync(join(dir, "node-floor-test-results.json")))
      runs.push(["test on the Node floor", "node-floor-test-results.json"]);
    for (const [script, file] of runs) {
      const label = script === "test" ? dir : `${dir} (${script})`;
      const reportPath = join(dir, file);
      if (!existsSync(reportPath)) {
        missing.push(label);
        continue;
      }
      const report = JSON.parse(readFileSync(reportPath, "utf8"));
      // A file that failed outside its tests (a beforeAll hook timing out, an import error)
      // reports its tests as skipped: they count as failed here (at least one per file), so the
      // closing line cannot hide it.
      const brokenFiles = (report.testResults ?? []).filter(
        (file) => file.status === "failed" && !(file.assertionResults ?? []).some((test) => test.status === "failed"),
      );
      const unrunInBroken = brokenFiles.map(
        (file) => (file.assertionResults ?? []).filter((test) => test.status !== "passed").length,
      );
      const fileFailed = report.numFailedTests + unrunInBroken.reduce((sum, count) => sum + Math.max(1, count), 0);
      const fileSkipped =
        report.numPendingTests + (report.numTodoTests ?? 0) - unrunInBroken.reduce((sum, count) => sum + count, 0);
      passed += report.numPassedTests;
      failed += fileFailed;
      skipped += fileSkipped;
      const broken = brokenFiles
        .map((file) => `${file.name.split("/").slice(-2).join("/")} failed outside its tests`)
        .join("; ");
      console.log(
        `${label}: ${report.numPassedTests} passed, ${fileFailed} failed, ${fileSkipped} skipped${broken ? ` (${broken})` : ""}`,
      );
    }
  }
}
for (const dir of missing) console.log(`${dir}: no test report (its tests did not run)`);
console.log(`${passed} passed, ${failed + missing.length} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);
