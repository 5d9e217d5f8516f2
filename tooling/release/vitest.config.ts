import { defineConfig, mergeConfig } from "vitest/config";
import { sharedVitestConfig } from "../../vitest.shared.ts";

// The end-to-end release test has its own config (vitest.release.config.ts): it needs every
// package built, so scripts/check.sh runs it after the build, not with the unit tests.
export default mergeConfig(
  sharedVitestConfig,
  defineConfig({ test: { exclude: ["**/node_modules/**", "**/*.e2e.test.ts"] } }),
);
