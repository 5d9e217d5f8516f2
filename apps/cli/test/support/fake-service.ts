import { createFakeSupplierApi, type FakeSupplierApi, type FakeSupplierApiOptions } from "@sds/testing";

/** The fake service over real HTTP, with the environment that points `sds` at it. */
export interface RunningFake {
  readonly api: FakeSupplierApi;
  readonly baseUrl: string;
  readonly apiKey: string;
  /** SDS_BASE_URL and SDS_API_KEY for the fake's first supplier. */
  readonly env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/** A key nothing else contains, so a test can prove it never appears in any output. */
export const canaryApiKey = "canary-KEY-7f3a9c1e5b";

/** Starts the fake on 127.0.0.1, a free port; the test that starts it closes it. */
export async function startFake(options: FakeSupplierApiOptions = {}): Promise<RunningFake> {
  const api = createFakeSupplierApi({
    seed: 7,
    suppliers: [{ supplierId: 1001, apiKey: canaryApiKey, surveys: 12 }],
    ...options,
  });
  const server = await api.listen({ port: 0 });
  const apiKey = api.keys[0]?.apiKey ?? canaryApiKey;
  return {
    api,
    baseUrl: server.baseUrl,
    apiKey,
    env: { SDS_BASE_URL: server.baseUrl, SDS_API_KEY: apiKey },
    close: () => api.close(),
  };
}
