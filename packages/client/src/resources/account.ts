import type { SupplierAccountResponse, UpdateResponse, UrlSettingsBody } from "@sds/schemas";
import type { ApiPromise } from "../api-promise.ts";
import type { RequestOptions } from "../client-options.ts";
import { operationParser } from "../internal/operation-parsers.ts";
import type { Transport } from "../internal/transport.ts";

/**
 * The supplier account: its details and its redirect and S2S redirect URLs.
 *
 * @example
 * ```ts
 * const { data: account } = await sds.account.get();
 * await sds.account.updateRedirectUrls(account.Id, { ...account.RedirectUrls, CompleteUrl: "https://panel.example/done?rid=[%RID%]" });
 * ```
 */
export class Account {
  readonly #transport: Transport;

  /** @internal Resources are created by the client: use `sds.account`. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Get Supplier Details (`GET /supplier-account`): the account with its encryption settings
   * and URLs. `data.*.EncryptionKey` is a secret: mask it (`maskAccountSecrets` of
   * `@sds/schemas`) before printing.
   */
  get(options?: RequestOptions): ApiPromise<SupplierAccountResponse> {
    return this.#transport.request(
      { operation: "getSupplierAccount", parse: operationParser("getSupplierAccount") },
      options,
    );
  }

  /**
   * Update redirect urls (`PUT /supplier-account/{SupplierId}/redirect-url`): replaces the
   * account's redirect URLs. `urls` is checked against `UrlSettingsBody` before anything is
   * sent (all five fields, absolute http(s) URLs); an invalid body throws
   * `RequestValidationError`. Resolves to the envelope with one confirmation message.
   */
  updateRedirectUrls(
    supplierId: string | number,
    urls: UrlSettingsBody,
    options?: RequestOptions,
  ): ApiPromise<UpdateResponse> {
    return this.#transport.request(
      {
        operation: "updateRedirectUrls",
        pathParams: { SupplierId: supplierId },
        body: urls,
        parse: operationParser("updateRedirectUrls"),
      },
      options,
    );
  }

  /**
   * Update S2S redirect urls (`PUT /supplier-account/{SupplierId}/s2s-redirect-url`): replaces
   * the account's server-to-server URLs. Checked before sending like
   * {@link Account.updateRedirectUrls}.
   */
  updateS2SRedirectUrls(
    supplierId: string | number,
    urls: UrlSettingsBody,
    options?: RequestOptions,
  ): ApiPromise<UpdateResponse> {
    return this.#transport.request(
      {
        operation: "updateS2SRedirectUrls",
        pathParams: { SupplierId: supplierId },
        body: urls,
        parse: operationParser("updateS2SRedirectUrls"),
      },
      options,
    );
  }
}
