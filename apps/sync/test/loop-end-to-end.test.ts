import { createClient } from "@sds/client";
import type { EncryptionSettings } from "@sds/schemas";
import {
  createFakeMarketplace,
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type RespondentOutcome,
  type SurveyInit,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { screenedSurvey } from "./loop-surveys.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

const TOKEN = "end-to-end-api-token-0123456789";
const incoming: EncryptionSettings = {
  Enabled: true,
  Algorithm: "SHA256",
  QueryParameter: "hash",
  EncryptionKey: "entry-secret-key",
};
const outgoing: EncryptionSettings = {
  Enabled: true,
  Algorithm: "SHA1",
  QueryParameter: "sig",
  EncryptionKey: "s2s-secret-key-01",
};

/** A survey screening on gender (43), entered through a link carrying the transaction and respondent ids. */
const survey = (id: number, cpi: string, ir: string, codes: readonly string[]): SurveyInit =>
  screenedSurvey(
    { SurveyId: id, Cpi: cpi, Ir: ir, SurveyUrl: `https://survey.example.com/s/${id}?tid=[#vq_tid#]&uid=[#vq_tuid#]` },
    { question: 43, codes },
  );

describe("the respondent loop, end to end over HTTP", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("syncs, matches, issues entry links, lets the marketplace end the sessions and shows conversion from the recorded outcomes", async () => {
    // The fake marketplace and its supplier: both encryptions on, three surveys screening on gender (43).
    const api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [
            survey(7001, "4.00", "50", ["1"]),
            survey(7002, "2.50", "40", ["1", "2"]),
            survey(7003, "9.00", "80", ["2"]),
          ],
          account: { IncomingEncryption: incoming, OutgoingEncryption: outgoing },
        },
      ],
    });
    cleanups.push(() => api.close());
    const harness: ServiceHarness = await startServiceHarness({ api, config: { apiToken: TOKEN } });
    cleanups.push(() => harness.close());
    // Real senders retry and repeat: every callback is delivered three times, two of them at once.
    const marketplace = createFakeMarketplace({ api, s2s: { duplicates: 2, concurrentDuplicates: true } });
    await marketplace.listen();
    cleanups.push(() => marketplace.close());

    // The account's S2S URLs point at sds-sync's receiver, with the marketplace's token placeholder.
    const sds = createClient({ baseUrl: harness.fake.baseUrl, apiKey: DEFAULT_API_KEY });
    const { data: account } = await sds.account.get();
    const receiver = harness.service.outcomesUrl;
    await sds.account.updateS2SRedirectUrls(account.Id, {
      Enabled: true,
      CompleteUrl: `${receiver}/v1/outcomes/complete?vq_token=[%RID%]`,
      TerminateUrl: `${receiver}/v1/outcomes/terminate?vq_token=[%RID%]`,
      OverQuotaUrl: `${receiver}/v1/outcomes/overquota?vq_token=[%RID%]`,
      SecurityTerminateUrl: `${receiver}/v1/outcomes/security?vq_token=[%RID%]`,
    });

    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const call = async (path: string, body?: unknown) => {
      const response = await harness.request(
        path,
        body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) },
      );
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    // Match: women (code 2) qualify for 7003 (9 × 80 % = 7.2 per entry) before 7002 (1.0).
    const matched = await call("/v1/match", { answers: { "43": ["2"] }, device: "mobile" });
    expect(matched.status).toBe(200);
    expect((matched.body.surveys as { SurveyId: number }[]).map((each) => each.SurveyId)).toEqual([7003, 7002]);

    // Six respondents enter the best survey through signed entry links and end as planned.
    const plan: RespondentOutcome[] = ["complete", "complete", "terminate", "overquota", "complete", "terminate"];
    for (const [index, outcome] of plan.entries()) {
      const issued = await call("/v1/entry-links", {
        surveyId: 7003,
        token: `e2e-token-${index}`,
        uid: `respondent-${index}`,
      });
      expect(issued.status).toBe(201);
      const entry = await marketplace.respond(issued.body.link as string, outcome);
      expect(entry).toMatchObject({ surveyId: 7003, token: `e2e-token-${index}`, uid: `respondent-${index}`, outcome });
    }
    await marketplace.settle();

    // Every callback (and its repeats) reached the receiver; each (token, outcome) is recorded once.
    const deliveries = marketplace.deliveries();
    expect(deliveries).toHaveLength(plan.length * 3);
    expect(deliveries.every((delivery) => delivery.delivered)).toBe(true);
    const listed = await call("/v1/outcomes?after=0");
    const outcomes = listed.body.outcomes as { token: string; outcome: string; surveyId: number }[];
    expect(outcomes.map((each) => [each.token, each.outcome, each.surveyId]).sort()).toEqual(
      plan.map((outcome, index) => [`e2e-token-${index}`, outcome, 7003]).sort(),
    );

    // Conversion in status: 3 completes of 6 entries at a CPI of 9.00.
    const status = await call("/v1/sync/status");
    const loop = status.body.loop as {
      surveys: { surveyId: number; lifetime: object }[];
      outcomes: unknown;
      account: unknown;
    };
    expect(loop.surveys.map((survey) => ({ surveyId: survey.surveyId, ...survey.lifetime }))).toEqual([
      {
        surveyId: 7003,
        entries: 6,
        pending: 0,
        completes: 3,
        terminates: 2,
        overquotas: 1,
        securityTerminates: 0,
        reversals: 0,
        earnings: 27,
        conversion: 0.5,
        earningsPerEntry: 4.5,
      },
    ]);
    expect(loop.outcomes).toEqual({ complete: 3, terminate: 2, overquota: 1, security: 0 });
    expect(loop.account).toMatchObject({ entryLinksSigned: true, outcomesVerified: true });
  });
});
