// Shared Vitest settings: resolve workspace packages from source and write a JSON report
// that `.ci/run` sums into its closing "N passed, M failed" line.
import { defineConfig } from "vitest/config";

export const sharedVitestConfig = defineConfig({
  resolve: { conditions: ["@sds/source"] },
  ssr: { resolve: { conditions: ["@sds/source"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // SDS_VITEST_REPORT: another report name, for a second run of the same suite (scripts/test-node-floor.sh).
    reporters: ["default", ["json", { outputFile: process.env["SDS_VITEST_REPORT"] ?? "test-results.json" }]],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
