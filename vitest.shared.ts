// Shared Vitest settings of the two test tiers. Both resolve workspace packages from source and
// write a JSON report that scripts/sum-test-results.mjs sums into the check's closing line.
//
// - The fast tier (`pnpm test`, `vitest.config.ts`): every `*.test.ts` except the system tier's,
//   in-process, from source, no build first, no fixed sleeps.
// - The system tier (`pnpm test:system`, `vitest.system.config.ts`): `*.system.test.ts`, what needs
//   built binaries, tarballs, SIGKILL, Chromium, PostgreSQL replicas, the demo or a release.
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/** Files run at once per package in the fast tier: SDS_TEST_WORKERS, or as many as the cores. */
const fastTierWorkers = Number(process.env["SDS_TEST_WORKERS"] ?? availableParallelism());

/** The system tier's files: a file name says its tier. */
const systemTestFiles = ["src/**/*.system.test.ts", "test/**/*.system.test.ts"];

/** The report's file name; SDS_VITEST_REPORT names another, for a second run of the same suite (scripts/test-node-floor.sh). */
const report = (fallback: string) =>
  ["json", { outputFile: process.env["SDS_VITEST_REPORT"] ?? fallback }] as [string, { outputFile: string }];

/**
 * The fast tier. The timeouts are a hang detector, not a budget: a test waits for what it needs
 * (`vi.waitFor`, a polled condition with its own deadline), so a loaded machine makes it slower,
 * never red.
 */
export const sharedVitestConfig = defineConfig({
  resolve: { conditions: ["@sds/source"] },
  ssr: { resolve: { conditions: ["@sds/source"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...systemTestFiles],
    reporters: ["default", report("test-results.json")],
    // Vitest's default is one worker fewer than the cores (one on two cores), which runs the files
    // one after another; most of a file's time is spent waiting (sockets, PostgreSQL, the service's
    // own timers), so more files at once overlap the waits. Not more than the cores: turbo runs
    // every package's tests at once.
    maxWorkers: fastTierWorkers,
    // A worker evaluates the sources once for all the files it runs, instead of once per file: the
    // import of sds-sync's sources alone costs about 0.45 s of CPU, and the fast tier was CPU-bound
    // (about 200 s of CPU on two cores, half of it in module evaluation and worker start). Files
    // then share module state, so what a test changes beyond its own objects is undone after each
    // test: spies restored, stubbed globals and environment variables put back.
    isolate: false,
    restoreMocks: true,
    unstubGlobals: true,
    unstubEnvs: true,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

/**
 * The system tier: processes, browsers and registries, which take seconds each. Its files keep
 * Vitest's default of one worker fewer than the cores (one at a time on two cores): they start
 * child processes that need the cores themselves, and some assert how fast a process stops.
 */
export const systemVitestConfig = defineConfig({
  resolve: { conditions: ["@sds/source"] },
  ssr: { resolve: { conditions: ["@sds/source"] } },
  test: {
    include: systemTestFiles,
    exclude: [...configDefaults.exclude],
    reporters: ["default", report("system-test-results.json")],
    // As in the fast tier: one evaluation of the sources per worker, each test's spies and stubs undone.
    isolate: false,
    restoreMocks: true,
    unstubGlobals: true,
    unstubEnvs: true,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
