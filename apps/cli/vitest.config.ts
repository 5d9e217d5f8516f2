import { defineConfig, mergeConfig } from "vitest/config";
import { sharedVitestConfig } from "../../vitest.shared.ts";
import packageJson from "./package.json" with { type: "json" };

// The fast tier runs `sds` from source in-process (test/support/run-sds.ts): the version is
// inlined as the bundler does (tsdown.config.ts), so `sds --version` answers the package's.
export default mergeConfig(
  sharedVitestConfig,
  defineConfig({ define: { __SDS_CLI_VERSION__: JSON.stringify(packageJson.version) } }),
);
