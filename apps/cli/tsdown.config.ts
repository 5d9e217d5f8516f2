import { defineConfig } from "tsdown";
import packageJson from "./package.json" with { type: "json" };

/*
 * One entry, sds.js, bundling everything (`sds --version` must not walk node_modules). The
 * entry answers `--version` itself and imports the rest on demand: the argument parser, help
 * and error reporting are one `cli-core` chunk (what `sds --help` reads), and each command is
 * a chunk of its own, so zod, ky and the client are evaluated only by commands that use them.
 * Measure with `pnpm --filter @sds/cli bench`.
 */
const cliCoreModules = /src[\\/](commands[\\/]registry|internal[\\/](argv|cell|command|csv|errors|exit-codes|global-options|help|io|output|report-error|run-cli|styles|suggest|table))\.ts$/;

export default defineConfig({
  entry: { sds: "src/main.ts" },
  format: "esm",
  platform: "node",
  dts: false,
  clean: true,
  fixedExtension: false,
  deps: { alwaysBundle: [/.*/] },
  banner: { js: "#!/usr/bin/env node" },
  // The version as a literal wherever it is used, so the entry needs no module to print it.
  define: { __SDS_CLI_VERSION__: JSON.stringify(packageJson.version) },
  outputOptions: {
    codeSplitting: { groups: [{ name: "cli-core", test: cliCoreModules }] },
  },
});
