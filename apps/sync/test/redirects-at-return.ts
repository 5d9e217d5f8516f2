import { createClient } from "@sds/client";
import { DEFAULT_API_KEY } from "@sds/testing";
import { syncOutcomeUrls } from "@sds/sync-client";
import type { ServiceHarness } from "./service-harness.ts";

/**
 * Points the account's RedirectUrls at the service's return (`/v1/return/{outcome}`), as
 * `sds account set-redirects --sync-return-url` does: the marketplace then sends each respondent
 * back to their session.
 */
export async function pointRedirectsAtReturn(harness: ServiceHarness): Promise<void> {
  const sds = createClient({ baseUrl: harness.fake.baseUrl, apiKey: DEFAULT_API_KEY });
  const { data: account } = await sds.account.get();
  await sds.account.updateRedirectUrls(account.Id, {
    Enabled: true,
    ...syncOutcomeUrls(harness.service.outcomesUrl, "return"),
  });
}
