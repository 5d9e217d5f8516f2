import { defineConfig, mergeConfig } from "vitest/config";
import { sharedVitestConfig } from "../../vitest.shared.ts";

// Pure functions over values (no sockets, timers, mocks or globals): the files share their
// workers instead of each starting one, about 40 % less CPU for this package in a tier whose
// every package runs at once on two cores.
export default mergeConfig(sharedVitestConfig, defineConfig({ test: { isolate: false } }));
