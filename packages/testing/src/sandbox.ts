import type { FakeSupplierApi, Clock, SupplierKey } from "./fake/types.ts";

/** Options of {@link startSandbox}; every one has a default so `startSandbox()` just works. */
export interface SandboxOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to bind. @default "127.0.0.1" */
  readonly host?: string;
  /** Seed of the generated data: the same seed gives the same surveys. @default 1 */
  readonly seed?: number;
  /** Live surveys per supplier. @default 100 */
  readonly surveys?: number;
  /** Closed surveys per supplier (never listed, still readable by id). @default 0 */
  readonly closedSurveys?: number;
  /** Number of suppliers, each with its own key. @default 1 */
  readonly suppliers?: number;
  /**
   * API key of the first supplier. @default a key derived from the seed, such as `"sbx_1_3f9c…"`
   */
  readonly apiKey?: string;
  /** The clock. @default () => new Date() */
  readonly now?: Clock;
}

/** A running sandbox. */
export interface Sandbox {
  /** Base URL for clients, ending in `/api/v1`. */
  readonly baseUrl: string;
  /** Scheme, host and port. */
  readonly origin: string;
  /** Base URL of the control routes, ending in `/__sandbox`. */
  readonly controlUrl: string;
  /** The port actually bound. */
  readonly port: number;
  /** One entry per supplier: its id and the API key that authenticates as it. */
  readonly keys: readonly SupplierKey[];
  /** The fake behind it, for control and faults from the same process. */
  readonly api: FakeSupplierApi;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts the fake as a sandbox server: control routes on, seeded data, listening on
 * 127.0.0.1. The `sds sandbox` command is a thin wrapper around it.
 *
 * @example
 * ```ts
 * const sandbox = await startSandbox({ port: 4010, seed: 1, surveys: 500, apiKey: "dev-key" });
 * console.log(sandbox.baseUrl, sandbox.keys);
 * await sandbox.close();
 * ```
 */
export async function startSandbox(_options: SandboxOptions = {}): Promise<Sandbox> {
  await Promise.resolve();
  throw new Error("startSandbox: implementation in progress");
}
