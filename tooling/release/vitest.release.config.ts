import { defineConfig } from "vitest/config";
import { sharedVitestConfig } from "../../vitest.shared.ts";

// `pnpm test:release`: the end-to-end release test alone, one long sequential run with its own
// report (summed by scripts/sum-test-results.mjs like the others).
export default defineConfig({
  ...sharedVitestConfig,
  test: {
    ...sharedVitestConfig.test,
    include: ["src/**/*.e2e.test.ts"],
    reporters: ["default", ["json", { outputFile: "release-test-results.json" }]],
    testTimeout: 300_000,
    hookTimeout: 900_000,
  },
});
