import { defineConfig, mergeConfig } from "vitest/config";
import { sharedVitestConfig } from "../../vitest.shared.ts";

export default mergeConfig(
  sharedVitestConfig,
  defineConfig({
    test: {
      // `*.test-d.ts` files are checked by tsc, never run: a wrong type in one fails `pnpm test`.
      typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    },
  }),
);
