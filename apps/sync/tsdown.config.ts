import { defineConfig } from "tsdown";

// Two entries: the service (`sds-sync`, published) and the demo (run from the repository,
// needs the dev dependency @sds/testing, left out of the published files). Dependencies stay
// external; only src/ is bundled. The status page's browser files are read at run time from
// `browser/` beside the code (src/status-page/page-assets.ts), so they are copied beside the chunks.
export default defineConfig({
  entry: { main: "src/main.ts", demo: "src/demo.ts" },
  format: "esm",
  platform: "node",
  dts: false,
  clean: true,
  fixedExtension: false,
  banner: { js: "#!/usr/bin/env node" },
  copy: [
    {
      from: [
        "src/status-page/browser/index.html",
        "src/status-page/browser/status.js",
        "src/status-page/browser/status.css",
      ],
      to: "dist/browser",
    },
  ],
});
