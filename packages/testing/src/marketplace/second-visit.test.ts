import { buildEntryLink } from "@sds/routing";
import { describe, expect, it } from "vitest";
import { buildUrlSettings } from "../factories/account.ts";
import { createFakeSupplierApi } from "../fake/create-fake-supplier-api.ts";
import { createFakeMarketplace } from "./create-fake-marketplace.ts";

describe("the fake marketplace's answer to a second visit of a token", () => {
  it("is the outcome of the first visit, not a new draw", async () => {
    const api = createFakeSupplierApi({
      seed: 5,
      suppliers: [
        { supplierId: 1001, apiKey: "k", surveys: 12, account: { S2SUrls: buildUrlSettings({ Enabled: false }) } },
      ],
    });
    const marketplace = createFakeMarketplace({ api, seed: 5 });
    try {
      const survey = api.listSurveys(1001).find((candidate) => candidate.SurveyUrl.includes("[#vq_tid#]"));
      if (survey === undefined) throw new Error("the seeded fake has no survey with a [#vq_tid#] placeholder");
      const account = api.getAccount(1001);
      const first: string[] = [];
      const second: string[] = [];
      for (let respondent = 0; respondent < 30; respondent++) {
        const link = buildEntryLink(
          survey,
          { token: `tok-${respondent}`, uid: `resp-${respondent}` },
          { encryption: account.IncomingEncryption },
        );
        first.push((await marketplace.enter(link)).outcome ?? "none");
        second.push((await marketplace.enter(link)).outcome ?? "none");
      }
      // Thirty draws are not all alike: a new draw on the second visit would differ somewhere.
      expect(new Set(first).size).toBeGreaterThan(1);
      expect(second).toEqual(first);
    } finally {
      await marketplace.close();
      await api.close();
    }
  });
});
