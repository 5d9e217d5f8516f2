import { defineConfig } from "tsdown";

export default defineConfig({
  // The router is a second entry, `@sds/schemas/internal/router`: a mechanism of the fake and of sds-sync, not public API.
  entry: ["src/index.ts", "src/internal/router.ts"],
  format: "esm",
  platform: "neutral",
  dts: true,
  clean: true,
  fixedExtension: false,
  sourcemap: true,
});
