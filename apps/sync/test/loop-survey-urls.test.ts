import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  hostileSurveyInits,
  type FakeSupplierApi,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { unsignedOutcomes } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * SurveyUrls that cannot make a working entry link, over HTTP: [%RID%] is filled with the token;
 * a placeholder nobody can fill keeps its survey out of /v1/match (explain says why) and its
 * link is 422; a javascript:, data:, file: or userinfo URL never becomes a link: the survey is
 * quarantined at ingest with the reason.
 */

// 900001 rid-placeholder, 900002 unknown-placeholder, 900003 unknown-vq-placeholder, 900004 javascript, 900005 data, 900006 file, 900007 userinfo, 900008 userinfo-host-spoof
const ids = {
  rid: 900_001,
  unknown: 900_002,
  unknownVq: 900_003,
  javascript: 900_004,
  data: 900_005,
  file: 900_006,
  userinfo: 900_007,
  spoof: 900_008,
};

describe("survey URLs that cannot make a working entry link", () => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
  });

  it("fills [%RID%] with the token, keeps unfillable ones out of matching (422 for a link), and quarantines script, data, file and userinfo URLs at ingest", async () => {
    const surveys = hostileSurveyInits().map((init) => ({
      ...init,
      survey: {
        ...init.survey,
        LanguageId: 1,
        DesktopAllowed: true,
        MobileAllowed: true,
        TabletAllowed: true,
        Has_Qualifications: false,
        Has_Quotas: false,
      },
    }));
    api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys,
          account: { OutgoingEncryption: unsignedOutcomes },
        },
      ],
    });
    harness = await startServiceHarness({ api, config: { maxClosureShare: 1 } });
    const service = harness;
    const post = (path: string, body: unknown) =>
      service.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    await waitFor(
      async () => (await post("/v1/entry-links", { surveyId: ids.rid, token: "probe", uid: "probe" })).status === 201,
      20_000,
    );

    const linked = (await (await post("/v1/entry-links", { surveyId: ids.rid, token: "tok 7", uid: "u1" })).json()) as {
      link: string;
    };
    // Signed with the account's IncomingEncryption: the filled URL, then the signature.
    expect(linked.link.startsWith("https://survey.example.com/s/900001?rid=tok%207&hash=")).toBe(true);

    for (const id of [ids.unknown, ids.unknownVq]) {
      const refused = await post("/v1/entry-links", { surveyId: id, token: `t-${id}` });
      expect(refused.status, String(id)).toBe(422);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unusable_survey_url");
    }
    const matched = (await (await post("/v1/match", { answers: {}, explain: ids.unknown })).json()) as {
      surveys: { SurveyId: number }[];
      explanation: { reasons: { kind: string; message: string }[] };
    };
    expect(matched.surveys.map((survey) => survey.SurveyId)).toEqual([ids.rid]);
    expect(matched.explanation.reasons.map((reason) => reason.kind)).toEqual(["unusable-survey-url"]);

    for (const id of [ids.javascript, ids.data, ids.file, ids.userinfo, ids.spoof])
      expect((await post("/v1/entry-links", { surveyId: id, token: `t-${id}` })).status, String(id)).toBe(404);
    const status = (await (await service.request("/v1/sync/status")).json()) as {
      quarantine: { surveyId: number | null; issues: unknown }[];
    };
    const quarantined = new Map(status.quarantine.map((entry) => [entry.surveyId, JSON.stringify(entry.issues)]));
    for (const id of [ids.javascript, ids.data, ids.file, ids.userinfo, ids.spoof])
      expect(quarantined.get(id), String(id)).toMatch(/SurveyUrl cannot become an entry link/);
  });
});
