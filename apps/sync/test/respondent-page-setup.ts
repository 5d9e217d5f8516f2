import { signStartLink, type StartLinkInput } from "@sds/routing";
import {
  createFakeMarketplace,
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeMarketplace,
} from "@sds/testing";
import type { DatabaseConfig, SyncConfig } from "../src/config/config.ts";
import { waitFor } from "./harness.ts";
import { loopSurvey, screenedSurvey } from "./loop-surveys.ts";
import { unsignedOutcomes } from "./loop-traffic.ts";
import { pointRedirectsAtReturn } from "./redirects-at-return.ts";
import { startServiceHarness, TEST_SESSION_SECRET, type ServiceHarness } from "./service-harness.ts";

/*
 * The respondent page's tests start the same service: surveys in English (language 3) that make
 * a session ask the gender question, offer a survey and re-route after a terminate, and the
 * account's redirects pointing at sds-sync's return, as a supplier sets them up.
 */

/** Surveys in language 3: a dear one for women (gender 43, code 2), and three open to everyone; two alike in German. */
export const pageSurveys = [
  screenedSurvey(
    {
      SurveyId: 8100,
      LanguageId: 3,
      Cpi: "9.00",
      Ir: "70",
      Loi: "12",
      SurveyUrl: "https://survey.example.com/s/8100?rid=[%RID%]",
      Has_Survey_Groups: false,
      StudyTypeId: 1,
    },
    { question: 43, codes: ["2"] },
  ),
  loopSurvey(8101, { LanguageId: 3, Cpi: "1.50", Ir: "60", Loi: "10" }),
  loopSurvey(8102, { LanguageId: 3, Cpi: "1.40", Ir: "60", Loi: "10" }),
  loopSurvey(8103, { LanguageId: 3, Cpi: "1.30", Ir: "60", Loi: "10" }),
  // German (language 9): the same question, so a German session asks it in a German page.
  screenedSurvey(
    { SurveyId: 8900, LanguageId: 9, Cpi: "9.00", Ir: "70", Loi: "12", Has_Survey_Groups: false, StudyTypeId: 1 },
    { question: 43, codes: ["2"] },
  ),
  loopSurvey(8901, { LanguageId: 9, Cpi: "1.50", Ir: "60", Loi: "10" }),
];

/** A started service with its marketplace, and a signer of start links to its page. */
export interface PageService {
  readonly harness: ServiceHarness;
  /** The sandbox marketplace the surveys' entry links lead to. */
  readonly marketplace: FakeMarketplace;
  /** Its origin: where entry links go. */
  readonly marketplaceOrigin: string;
  /** Where the respondent's browser reaches the page (the outcomes listener). */
  readonly base: string;
  /** A start link signed with the harness's secret (or `secret`). */
  startLink(input: StartLinkInput, secret?: string): string;
  close(): Promise<void>;
}

/** Starts the service with the page on (unless `config` turns it off) and the account's redirects set. */
export async function startPageService(
  config: Partial<SyncConfig> = {},
  database?: DatabaseConfig,
): Promise<PageService> {
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [...pageSurveys],
          account: { OutgoingEncryption: unsignedOutcomes },
        },
      ],
    });
    cleanups.push(() => api.close());
    // The surveys' entry links point at the sandbox marketplace, as the sandbox sets them: a browser can follow them.
    const marketplace = createFakeMarketplace({ api });
    const { origin } = await marketplace.listen();
    cleanups.push(() => marketplace.close());
    for (const { survey } of pageSurveys)
      if (survey?.SurveyId !== undefined)
        api.updateSurvey(survey.SurveyId, { SurveyUrl: `${origin}/s/${survey.SurveyId}?rid=[%RID%]` });
    const harness = await startServiceHarness({ api, config, ...(database === undefined ? {} : { database }) });
    cleanups.push(() => harness.close());
    await pointRedirectsAtReturn(harness);
    const base = harness.service.outcomesUrl;
    const { catalogue } = harness.service.sessions;
    await waitFor(() => catalogue.askable(3).size > 0 && catalogue.askable(9).size > 0, 20_000);
    return {
      harness,
      marketplace,
      marketplaceOrigin: origin,
      base,
      startLink: (input, secret = TEST_SESSION_SECRET) => signStartLink(input, secret, { baseUrl: base }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
