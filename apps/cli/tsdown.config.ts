import { defineConfig } from "tsdown";
import packageJson from "./package.json" with { type: "json" };

/*
 * One entry, sds.js, bundling everything (`sds --version` must not walk node_modules). The
 * entry answers `--version` itself and imports the rest on demand, in three layers:
 * - `help-text`: the command table and help texts, all that `sds --help` reads;
 * - `cli-core`: the argument parser, output formats, error reporting and the small helpers
 *   commands share (configuration, profiles, the lazy client), for every command;
 * - `table`: text tables and string-width (slow to load), only when a table is drawn;
 * - one chunk per command, so zod, ky and the client load only for the commands using them:
 *   a command imports those inside `run` (test/startup.system.test.ts checks that help loads none).
 * Measure with `pnpm --filter @sds/cli bench`.
 */
const helpModules =
  /src[\\/](commands[\\/]registry|framework[\\/](help|command-catalog|global-options|exit-codes|errors|styles|version))\.ts$/;
const cliCoreModules =
  /src[\\/](framework[\\/](argv|cell|command|csv|io|option-values|output|record-columns|report-error|run-cli|stdin|suggest)|connection[\\/](client|config|profiles)|commands[\\/]surveys[\\/](invalid-surveys|survey-records))\.ts$/;
const tableModules =
  /src[\\/]framework[\\/]table\.ts$|node_modules[\\/](string-width|strip-ansi|ansi-regex|get-east-asian-width)[\\/]/;

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
        { name: "table", test: tableModules, priority: 1 },
      ],
    },
  },
});
