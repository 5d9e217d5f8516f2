import type { FakeSupplierApi, FakeSupplierApiOptions } from "./types.ts";

/**
 * Creates a fake Supplier Data Service.
 *
 * @example
 * ```ts
 * const api = createFakeSupplierApi({ seed: 7, control: true });
 * const server = await api.listen({ port: 0 });
 * ```
 */
export function createFakeSupplierApi(_options: FakeSupplierApiOptions = {}): FakeSupplierApi {
  throw new Error("createFakeSupplierApi: implementation in progress");
}
