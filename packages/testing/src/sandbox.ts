import { CONTROL_PREFIX } from "./fake/constants.ts";
import { createFakeSupplierApi } from "./fake/create-fake-supplier-api.ts";
import type { Clock, FakeSupplierApi, FakeSupplierInit, SupplierKey } from "./fake/types.ts";
import { createFakeMarketplace } from "./marketplace/create-fake-marketplace.ts";
import { pointSurveyUrlsAt } from "./marketplace/point-survey-urls.ts";
import type { FakeMarketplace } from "./marketplace/types.ts";
import { createSeededRandom, deriveSeed } from "./random.ts";
import { hiddenConversion } from "./simulation/hidden-conversion.ts";

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
  /**
   * Also start the fake marketplace (the other side of the respondent loop) and point every
   * survey's `SurveyUrl` at it, so that an entry link built for a sandbox survey leads to it:
   * visiting the link ends the session in an outcome drawn from the survey's hidden conversion
   * (`hiddenConversion` with the sandbox's seed), redirects to the account's redirect URL and
   * calls its S2S URL. @default false
   */
  readonly marketplace?: boolean;
  /** TCP port of the marketplace (with `marketplace`); 0 picks a free one. @default 0 */
  readonly marketplacePort?: number;
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
  /**
   * Scheme, host and port of the marketplace's entry endpoint (`GET /s/{surveyId}?…`), where
   * the sandbox surveys' `SurveyUrl`s point; `undefined` without the `marketplace` option.
   */
  readonly marketplaceOrigin: string | undefined;
  /**
   * Base URL of the marketplace's control routes, ending in `/__sandbox`: `PUT
   * {marketplaceControlUrl}/respondents/{uid}/answers` tells it a respondent's true answers (see
   * `FakeMarketplace.tellAnswers`); `undefined` without the `marketplace` option.
   */
  readonly marketplaceControlUrl: string | undefined;
  /** The marketplace, to plan outcomes and read its S2S deliveries; `undefined` without the `marketplace` option. */
  readonly marketplace: FakeMarketplace | undefined;
  /** Stops the servers (the marketplace after its pending S2S deliveries). */
  close(): Promise<void>;
}

const DEFAULT_SANDBOX_SURVEYS = 100;
const FIRST_SANDBOX_SUPPLIER_ID = 1001;
/** Upper bound on generated surveys, so a typo such as `--surveys 1e9` fails fast instead of eating memory. */
const MAX_SANDBOX_SURVEYS = 1_000_000;

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
}

/** A key derived from the seed and supplier: stable across restarts with the same seed, different per supplier. */
function derivedKey(seed: number, supplierId: number): string {
  const random = createSeededRandom(deriveSeed(seed, supplierId, 0x5b));
  let hex = "";
  for (let index = 0; index < 6; index++) hex += random.int(0, 0xffff).toString(16).padStart(4, "0");
  return `sbx_${supplierId}_${hex}`;
}

/**
 * Starts the fake as a sandbox server: control routes on, seeded data, listening on
 * 127.0.0.1. The `sds sandbox` command is a thin wrapper around it. Invalid options throw a
 * `RangeError` naming the option before anything starts.
 *
 * @example
 * ```ts
 * const sandbox = await startSandbox({ port: 4010, seed: 1, surveys: 500, apiKey: "dev-key" });
 * console.log(sandbox.baseUrl, sandbox.keys);
 * await sandbox.close();
 * ```
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const seed = options.seed ?? 1;
  const surveys = options.surveys ?? DEFAULT_SANDBOX_SURVEYS;
  const closedSurveys = options.closedSurveys ?? 0;
  const supplierCount = options.suppliers ?? 1;
  checkInteger("seed", seed, 0, 2 ** 32 - 1);
  checkInteger("surveys", surveys, 0, MAX_SANDBOX_SURVEYS);
  checkInteger("closedSurveys", closedSurveys, 0, MAX_SANDBOX_SURVEYS);
  checkInteger("suppliers", supplierCount, 1, 100);
  checkInteger("port", options.port ?? 0, 0, 65_535);
  checkInteger("marketplacePort", options.marketplacePort ?? 0, 0, 65_535);
  if (
    options.apiKey !== undefined &&
    (options.apiKey.trim() !== options.apiKey || options.apiKey === "" || /[^\x21-\x7e]/.test(options.apiKey))
  ) {
    throw new RangeError("apiKey must be non-empty printable ASCII without spaces");
  }

  const suppliers: FakeSupplierInit[] = Array.from({ length: supplierCount }, (_, index) => {
    const supplierId = FIRST_SANDBOX_SUPPLIER_ID + index;
    const apiKey = index === 0 && options.apiKey !== undefined ? options.apiKey : derivedKey(seed, supplierId);
    return { supplierId, apiKey, surveys, closedSurveys };
  });
  const api = createFakeSupplierApi({ seed, suppliers, control: true, ...(options.now ? { now: options.now } : {}) });
  const host = options.host ?? "127.0.0.1";
  const marketplace =
    options.marketplace === true ? await startMarketplace(api, seed, host, options.marketplacePort ?? 0) : undefined;
  let server;
  try {
    server = await api.listen({ port: options.port ?? 0, host });
  } catch (error) {
    await marketplace?.fake.close();
    throw error;
  }
  return {
    baseUrl: server.baseUrl,
    origin: server.origin,
    controlUrl: `${server.origin}${CONTROL_PREFIX}`,
    port: server.port,
    keys: api.keys,
    api,
    marketplaceOrigin: marketplace?.origin,
    marketplaceControlUrl: marketplace === undefined ? undefined : `${marketplace.origin}${CONTROL_PREFIX}`,
    marketplace: marketplace?.fake,
    async close() {
      await marketplace?.fake.close();
      await api.close();
    },
  };
}

/** The marketplace over the sandbox's fake, listening, with every survey's `SurveyUrl` pointing at it. */
async function startMarketplace(
  api: FakeSupplierApi,
  seed: number,
  host: string,
  port: number,
): Promise<{ readonly origin: string; readonly fake: FakeMarketplace }> {
  const fake = createFakeMarketplace({ api, seed, conversion: (survey) => hiddenConversion(survey, { seed }) });
  const { origin } = await fake.listen({ port, host });
  pointSurveyUrlsAt(
    api,
    api.keys.map((key) => key.supplierId),
    origin,
  );
  return { origin, fake };
}
