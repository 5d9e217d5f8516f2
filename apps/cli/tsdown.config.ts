import { defineConfig } from "tsdown";

// One self-contained file: `sds --version` must not walk node_modules at start-up.
export default defineConfig({
  entry: { sds: "src/main.ts" },
  format: "esm",
  platform: "node",
  dts: false,
  clean: true,
  fixedExtension: false,
  deps: { alwaysBundle: [/.*/] },
  banner: { js: "#!/usr/bin/env node" },
});
