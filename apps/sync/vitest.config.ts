import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import { sharedVitestConfig } from "../../vitest.shared.ts";

// sds-sync's fast tier is the longest and mostly waits (sockets, PostgreSQL, NATS, webhook
// receivers, the service's own timers: about 70 s of CPU in 60 s alone on two cores): twice as
// many files at once as the cores.
export default mergeConfig(
  sharedVitestConfig,
  defineConfig({ test: { maxWorkers: Number(process.env["SDS_TEST_WORKERS"] ?? 2 * availableParallelism()) } }),
);
