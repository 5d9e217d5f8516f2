import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { main: "src/main.ts" },
  format: "esm",
  platform: "node",
  dts: false,
  clean: true,
  fixedExtension: false,
  banner: { js: "#!/usr/bin/env node" },
});
