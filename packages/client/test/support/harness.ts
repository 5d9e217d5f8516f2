import { createClient, type ClientOptions, type SdsClient } from "@sds/client";
import { createFakeSupplierApi, type FakeSupplierApi, type FakeSupplierApiOptions } from "@sds/testing";

/** How a test reaches the fake: its fetch handler with no socket, or real HTTP on 127.0.0.1. */
export type TransportMode = "in-process" | "http";

/** Both modes, for `describe.each`. */
export const transportModes: readonly TransportMode[] = ["in-process", "http"];

/** A fake service and a client pointed at it. */
export interface Harness {
  readonly api: FakeSupplierApi;
  readonly sds: SdsClient;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly supplierId: number;
  /** Another client on the same fake, with other options. */
  client(options?: ClientOptions): SdsClient;
  /** Closes the server the harness opened (HTTP mode). */
  close(): Promise<void>;
}

/** Starts a fake and a client; the test that calls it closes it. */
export async function startHarness(
  mode: TransportMode,
  options: ClientOptions = {},
  apiOptions: FakeSupplierApiOptions = {},
): Promise<Harness> {
  const api = createFakeSupplierApi({ seed: 11, ...apiOptions });
  const [key] = api.keys;
  if (key === undefined) throw new Error("the fake has no supplier");
  let baseUrl = "http://fake.test/api/v1";
  let close = (): Promise<void> => Promise.resolve();
  if (mode === "http") {
    const server = await api.listen({ port: 0 });
    baseUrl = server.baseUrl;
    close = () => server.close();
  }
  const client = (extra: ClientOptions = {}): SdsClient =>
    createClient({
      baseUrl,
      apiKey: key.apiKey,
      ...(mode === "in-process" ? { fetch: api.fetch } : {}),
      ...options,
      ...extra,
    });
  return { api, sds: client(), baseUrl, apiKey: key.apiKey, supplierId: key.supplierId, client, close };
}
