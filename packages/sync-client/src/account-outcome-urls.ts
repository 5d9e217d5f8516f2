import { SyncConfigurationError } from "./errors/sync-client-error.ts";
import { checkBaseUrl } from "./internal/resolve-options.ts";
import type { OutcomeKind } from "./schemas/outcome-kinds.ts";

/**
 * The token placeholder of the account's outcome URLs: the marketplace fills `[#vq_tid#]` with
 * the entry's transaction token when it calls an S2S URL or redirects the respondent.
 */
export const OUTCOME_TOKEN_PLACEHOLDER = "[#vq_tid#]";

/** The query parameter sds-sync reads the token from unless `SYNC_OUTCOMES_TOKEN_PARAM` says otherwise. */
export const DEFAULT_OUTCOME_TOKEN_PARAMETER = "vq_token";

/**
 * Where in sds-sync the account's outcome URLs point: `receiver`, the S2S receiver
 * (`/v1/outcomes/{outcome}`, for the account's `S2SUrls`), or `return`, where the respondent comes
 * back to their session (`/v1/return/{outcome}`, for its `RedirectUrls`).
 */
export type SyncOutcomeRoute = "receiver" | "return";

/** The account's four outcome URLs (the fields of the spec's `UrlSettings` but `Enabled`). */
export interface OutcomeUrlFields {
  readonly CompleteUrl: string;
  readonly TerminateUrl: string;
  readonly OverQuotaUrl: string;
  readonly SecurityTerminateUrl: string;
}

const routePaths: Readonly<Record<SyncOutcomeRoute, string>> = { receiver: "/v1/outcomes", return: "/v1/return" };
const fieldOutcomes: Readonly<Record<keyof OutcomeUrlFields, OutcomeKind>> = {
  CompleteUrl: "complete",
  TerminateUrl: "terminate",
  OverQuotaUrl: "overquota",
  SecurityTerminateUrl: "security",
};

/**
 * The account's four outcome URLs pointing at an sds-sync at `baseUrl` (checked as the client
 * checks its own: absolute http(s), no query, fragment or credentials; trailing slashes ignored),
 * each carrying the token placeholder in sds-sync's token parameter. The one builder of
 * these URLs: `sds account set-s2s --receiver`, `sds account set-redirects --sync-return-url` and
 * the demo all use it.
 *
 * @throws SyncConfigurationError for a base URL that breaks that rule, or a token parameter that is no query parameter name.
 * @example
 * ```ts
 * syncOutcomeUrls("https://sync.example.com", "return").CompleteUrl;
 * // "https://sync.example.com/v1/return/complete?vq_token=[#vq_tid#]"
 * ```
 */
export function syncOutcomeUrls(
  baseUrl: string,
  route: SyncOutcomeRoute,
  options: {
    /** sds-sync's `SYNC_OUTCOMES_TOKEN_PARAM`. @default "vq_token" */
    readonly tokenParameter?: string;
  } = {},
): OutcomeUrlFields {
  const base = `${checkBaseUrl(baseUrl)}${routePaths[route]}`;
  const parameter = options.tokenParameter ?? DEFAULT_OUTCOME_TOKEN_PARAMETER;
  if (!/^[\w.~-]+$/.test(parameter))
    throw new SyncConfigurationError(
      `the token parameter must be a query parameter name (letters, digits, _ . ~ -), got ${JSON.stringify(parameter)}`,
      "tokenParameter",
    );
  const query = `${parameter}=${OUTCOME_TOKEN_PLACEHOLDER}`;
  const url = (field: keyof OutcomeUrlFields) => `${base}/${fieldOutcomes[field]}?${query}`;
  return {
    CompleteUrl: url("CompleteUrl"),
    TerminateUrl: url("TerminateUrl"),
    OverQuotaUrl: url("OverQuotaUrl"),
    SecurityTerminateUrl: url("SecurityTerminateUrl"),
  };
}
