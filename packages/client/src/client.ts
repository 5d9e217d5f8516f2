import type { ClientOptions } from "./client-options.ts";
import { resolveClientOptions } from "./internal/resolve-options.ts";
import { Transport } from "./internal/transport.ts";
import { Account } from "./resources/account.ts";
import { Collections } from "./resources/collections.ts";
import { Recontacts } from "./resources/recontacts.ts";
import { Surveys } from "./resources/surveys.ts";

/**
 * A client of the Supplier Data Service. Each resource is a field; each of its methods is one
 * HTTP operation and resolves to the parsed response body (envelope included). Create it with
 * {@link createClient}. The API key lives in a private field: printing the client never shows it.
 */
export class SdsClient {
  /** The base URL requests go to, without a trailing slash. */
  readonly baseUrl: string;
  /** The supplier account and its redirect and S2S redirect URLs. */
  readonly account: Account;
  /** Live surveys, their qualifications, quotas, stats and groups. */
  readonly surveys: Surveys;
  /** Re-contact respondents. */
  readonly recontacts: Recontacts;
  /** The reference collections. */
  readonly collections: Collections;

  /** @throws ConfigurationError when an option is missing or invalid. */
  constructor(options: ClientOptions = {}) {
    const transport = new Transport(resolveClientOptions(options));
    this.baseUrl = transport.baseUrl;
    this.account = new Account(transport);
    this.surveys = new Surveys(transport);
    this.recontacts = new Recontacts(transport);
    this.collections = new Collections(transport);
  }
}

/**
 * Creates a client. `baseUrl` and `apiKey` fall back to the `SDS_BASE_URL` and `SDS_API_KEY`
 * environment variables; when either is missing, or any option is invalid, it throws a
 * `ConfigurationError` at once.
 *
 * @throws ConfigurationError
 * @example
 * ```ts
 * import { createClient } from "@sds/client";
 *
 * const sds = createClient({ baseUrl: "https://sds.example/api/v1", apiKey: process.env.SDS_API_KEY });
 * const { Surveys } = await sds.surveys.list();
 * ```
 */
export function createClient(options: ClientOptions = {}): SdsClient {
  return new SdsClient(options);
}
