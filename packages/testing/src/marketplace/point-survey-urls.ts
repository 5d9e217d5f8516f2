import type { FakeSupplierApi } from "../fake/types.ts";
import { templateOrigin } from "./entry-parameters.ts";

/**
 * Moves the `SurveyUrl` of every survey of these suppliers (live and closed) to `origin`, keeping
 * path, query and placeholders, so that the entry links built from them lead to a listening
 * marketplace. `LastUpdatedOnUTC` is kept: nothing a poller should see as a change happened
 * before it first polled.
 */
export function pointSurveyUrlsAt(api: FakeSupplierApi, supplierIds: readonly number[], origin: string): void {
  for (const supplierId of supplierIds) {
    for (const survey of api.listSurveys(supplierId, "all")) {
      const current = templateOrigin(survey.SurveyUrl);
      if (current === "" || current === origin) continue;
      api.updateSurvey(survey.SurveyId, {
        SurveyUrl: `${origin}${survey.SurveyUrl.slice(current.length)}`,
        LastUpdatedOnUTC: survey.LastUpdatedOnUTC,
      });
    }
  }
}
