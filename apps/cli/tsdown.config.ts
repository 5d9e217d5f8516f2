import { defineConfig } from "tsdown";
import packageJson from "./package.json" with { type: "json" };

/*
 * One entry, sds.js, bundling everything (`sds --version` must not walk node_modules). The
 * entry answers `--version` itself and imports the rest on demand, in three layers:
 * - `help-text`: the command table and help texts, all that `sds --help` reads;
 * - `cli-core`: the argument parser, output formats and error reporting, for every command;
 * - one chunk per command, so zod, ky and the client load only for the commands using them.
 * Measure with `pnpm --filter @sds/cli bench`.
 */
const helpModules = /src[\\/](commands[\\/]registry|internal[\\/](help|global-options|exit-codes|errors|styles|version))\.ts$/;
const cliCoreModules = /src[\\/]internal[\\/](argv|cell|command|csv|io|output|report-error|run-cli|suggest|table)\.ts$/;

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
    codeSplitting: {
      groups: [
        { name: "help-text", test: helpModules, priority: 2 },
        { name: "cli-core", test: cliCoreModules, priority: 1 },
      ],
    },
  },
});
