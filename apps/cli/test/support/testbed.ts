import type { FakeSupplierApiOptions } from "@sds/testing";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startFake, type RunningFake } from "./fake-service.ts";
import { createTestHome, type TestHome } from "./run-sds.ts";

/** What a CLI test file works with: one fake per file, a fresh config home per test. */
export interface CliTestbed {
  readonly fake: RunningFake;
  readonly home: TestHome;
}

/** Options of {@link useCliTestbed}. */
export interface CliTestbedOptions {
  /** Options of the fake (its suppliers and surveys). */
  readonly fake?: FakeSupplierApiOptions;
  /**
   * Restore the fake's whole state before each test (for tests that change the account);
   * otherwise only faults and the request log are cleared. @default false
   */
  readonly resetState?: boolean;
}

/**
 * Registers the hooks every CLI test file needs: starts the fake over HTTP before the file and
 * closes it after; gives each test its own XDG config home and a fake without faults or logged
 * requests. Read `fake` and `home` inside tests (they are set by the hooks).
 */
export function useCliTestbed(options: CliTestbedOptions = {}): CliTestbed {
  let fake: RunningFake | undefined;
  let home: TestHome | undefined;
  beforeAll(async () => {
    fake = await startFake(options.fake);
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    home = createTestHome();
    if (options.resetState) {
      fake?.api.reset();
    } else {
      fake?.api.faults.clear();
      fake?.api.clearRequestLog();
    }
  });
  afterEach(() => {
    home?.remove();
  });
  return {
    get fake() {
      if (!fake) throw new Error("the fake is started in beforeAll: read testbed.fake inside a test or hook");
      return fake;
    },
    get home() {
      if (!home) throw new Error("the config home is created in beforeEach: read testbed.home inside a test or hook");
      return home;
    },
  };
}
