// Shared Vitest settings: resolve workspace packages from source and write a JSON report
// that `.ci/run` sums into its closing "N passed, M failed" line.
import { defineConfig } from "vitest/config";

export const sharedVitestConfig = defineConfig({
  resolve: { conditions: ["@sds/source"] },
  ssr: { resolve: { conditions: ["@sds/source"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    reporters: ["default", ["json", { outputFile: "test-results.json" }]],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
