import { defineConfig, mergeConfig } from "vitest/config";
import { systemVitestConfig } from "../../vitest.shared.ts";

// `pnpm test:system`: the end-to-end release test and the test of scripts/pack.sh, long
// sequential runs (a copy of the repository installed, versioned, built and published).
export default mergeConfig(systemVitestConfig, defineConfig({ test: { testTimeout: 300_000, hookTimeout: 900_000 } }));
