import { defineConfig } from "tsdown";

// Two entries: the service (`sds-sync`, published) and the demo (run from the repository,
// needs the dev dependency @sds/testing, left out of the published files). Dependencies stay
// external; only src/ is bundled.
export default defineConfig({
  entry: { main: "src/main.ts", demo: "src/demo.ts" },
  format: "esm",
  platform: "node",
  dts: false,
  clean: true,
  fixedExtension: false,
  banner: { js: "#!/usr/bin/env node" },
});
