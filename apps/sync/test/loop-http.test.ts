import { encryptionSigning, signUrl, verifySignedUrl } from "@sds/routing";
import type { EncryptionSettings } from "@sds/schemas";
import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeSupplierApi,
  type SurveyInit,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { screenedSurvey } from "./loop-surveys.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

const TOKEN = "loop-test-api-token-0123456789";
const incoming: EncryptionSettings = {
  Enabled: true,
  Algorithm: "SHA1",
  QueryParameter: "hash",
  EncryptionKey: "entry-secret-key",
};
const outgoing: EncryptionSettings = {
  Enabled: true,
  Algorithm: "SHA256",
  QueryParameter: "sig",
  EncryptionKey: "s2s-secret-key-01",
};

/** A survey screening on question 42 (open to all without `codes`), not shown on tablets. */
const survey = (
  id: number,
  cpi: string,
  ir: string,
  codes: readonly string[] | undefined,
  extra: Partial<NonNullable<SurveyInit["survey"]>> = {},
): SurveyInit =>
  screenedSurvey(
    {
      SurveyId: id,
      Cpi: cpi,
      Ir: ir,
      TabletAllowed: false,
      SurveyUrl: `https://survey.example.com/s/${id}?tid=[#vq_tid#]&uid=[#VQ_TUID#]"`,
      ...extra,
    },
    codes === undefined ? undefined : { question: 42, codes },
  );

const inventory: SurveyInit[] = [
  survey(9001, "2.00", "50", ["1"]),
  survey(9002, "3.00", "50", ["2"]),
  survey(9003, "1.00", "10", undefined),
];

function fakeWith(surveys: readonly SurveyInit[]): FakeSupplierApi {
  return createFakeSupplierApi({
    suppliers: [
      {
        supplierId: DEFAULT_SUPPLIER_ID,
        apiKey: DEFAULT_API_KEY,
        surveys,
        account: { IncomingEncryption: incoming, OutgoingEncryption: outgoing },
      },
    ],
  });
}

describe("the respondent loop over HTTP", () => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
  });

  async function start(config: Parameters<typeof startServiceHarness>[0] = {}): Promise<ServiceHarness> {
    api = fakeWith(inventory);
    harness = await startServiceHarness({
      api,
      config: { apiToken: TOKEN, maxClosureShare: 1, ...config.config },
      ...(config.database ? { database: config.database } : {}),
    });
    return harness;
  }
  const authorized = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const post = (service: ServiceHarness, path: string, body: unknown) =>
    service.request(path, { method: "POST", headers: authorized, body: JSON.stringify(body) });

  it("matches a respondent to the live surveys they qualify for, best expected earnings first", async () => {
    const service = await start();
    const response = await post(service, "/v1/match", { answers: { "42": ["2"] } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { surveys: { SurveyId: number; Cpi: string }[]; eligible: number };
    expect(body.surveys.map((each) => each.SurveyId)).toEqual([9002, 9003]);
    expect(body.eligible).toBe(2);
    const both = (await (
      await post(service, "/v1/match", { answers: { "42": ["1", "2"] }, device: "mobile", limit: 2 })
    ).json()) as { surveys: { SurveyId: number }[] };
    expect(both.surveys.map((each) => each.SurveyId)).toEqual([9002, 9001]);
    expect(
      (await (await post(service, "/v1/match", { answers: {}, device: "tablet" })).json()) as unknown,
    ).toMatchObject({ surveys: [], eligible: 0 });
  });

  it("explains why a survey is out", async () => {
    const service = await start();
    const body = (await (await post(service, "/v1/match", { answers: { "42": ["2"] }, explain: 9001 })).json()) as {
      explanation: { eligible: boolean; reasons: { kind: string }[] };
    };
    expect(body.explanation.eligible).toBe(false);
    expect(body.explanation.reasons.map((reason) => reason.kind)).toEqual(["qualification"]);
  });

  it("refuses a malformed match body with a 400 and asks for the bearer token", async () => {
    const service = await start();
    for (const body of [
      {},
      { answers: { "42": "2" } },
      { answers: {}, limit: 5001 },
      { answers: {}, device: "watch" },
      { answers: { age: ["3"] } },
      { answers: {}, extra: 1 },
    ]) {
      expect((await post(service, "/v1/match", body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (await service.request("/v1/match", { method: "POST", headers: authorized, body: "{not json" })).status,
    ).toBe(400);
    // zod drops a "__proto__" key silently; the body reader refuses it (escaped, too) rather than match as if it were absent.
    for (const text of ['{"answers":{"__proto__":["1"]}}', '{"answers":{"42":["1"]},"\\u005f_proto__":{}}']) {
      const refused = await service.request("/v1/match", { method: "POST", headers: authorized, body: text });
      expect([refused.status, ((await refused.json()) as { error: { message: string } }).error.message], text).toEqual([
        400,
        'the body must not use "__proto__" as a key',
      ]);
    }
    expect(
      (
        await service.request("/v1/match", {
          method: "POST",
          headers: authorized,
          body: JSON.stringify({ answers: { "42": ["x".repeat(100)] } }).padEnd(70_000, " "),
        })
      ).status,
    ).toBe(413);
    expect((await service.request("/v1/match", { method: "POST", body: JSON.stringify({ answers: {} }) })).status).toBe(
      401,
    );
  });

  it("follows committed cycles: a closed survey leaves the matcher and a new one enters", async () => {
    const service = await start();
    service.api.closeSurvey(9002);
    service.api.addSurvey(DEFAULT_SUPPLIER_ID, survey(9004, "9.00", "90", ["2"]));
    expect((await post(service, "/v1/sync/run", {})).status).toBe(200);
    await waitFor(async () => {
      const body = (await (await post(service, "/v1/match", { answers: { "42": ["2"] } })).json()) as {
        surveys: { SurveyId: number }[];
      };
      return body.surveys.map((each) => each.SurveyId).join() === "9004,9003";
    });
  });

  it("issues signed entry links with the placeholders filled, once per token", async () => {
    const service = await start();
    const first = await post(service, "/v1/entry-links", { surveyId: 9001, token: "t 1", uid: "r/9" });
    expect(first.status).toBe(201);
    const { link } = (await first.json()) as { link: string };
    expect(link.startsWith("https://survey.example.com/s/9001?tid=t%201&uid=r%2F9&hash=")).toBe(true);
    const signing = encryptionSigning(incoming);
    expect(signing && verifySignedUrl(link, signing.key, signing.scheme).valid).toBe(true);
    const repeat = await post(service, "/v1/entry-links", { surveyId: 9001, token: "t 1", uid: "r/9" });
    expect(repeat.status).toBe(200);
    expect(((await repeat.json()) as { link: string }).link).toBe(link);
    expect((await post(service, "/v1/entry-links", { surveyId: 9002, token: "t 1", uid: "r/9" })).status).toBe(409);
    expect((await post(service, "/v1/entry-links", { surveyId: 123, token: "t 2" })).status).toBe(404);
    expect((await post(service, "/v1/entry-links", { surveyId: 9001 })).status).toBe(400);
  });

  it("records signed outcomes once, refuses unsigned ones, and shows conversion in status", async () => {
    const service = await start();
    await post(service, "/v1/entry-links", { surveyId: 9001, token: "tok-a", uid: "r1" });
    await post(service, "/v1/entry-links", { surveyId: 9001, token: "tok-b", uid: "r2" });
    const signing = encryptionSigning(outgoing);
    if (!signing) throw new Error("outgoing encryption is enabled");
    const signed = (outcome: string, token: string) =>
      signUrl(`${service.service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${token}`, signing.key, signing.scheme);

    expect((await fetch(`${service.service.outcomesUrl}/v1/outcomes/complete?vq_token=tok-a`)).status).toBe(403);
    expect((await fetch(`${signed("complete", "tok-a")}x`)).status).toBe(403);
    const tampered = signed("complete", "tok-a").replace("tok-a", "tok-b");
    expect((await fetch(tampered)).status).toBe(403);

    const first = await fetch(signed("complete", "tok-a"));
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      recorded: true,
      outcome: { sequence: 1, token: "tok-a", outcome: "complete", surveyId: 9001 },
    });
    const again = await fetch(signed("complete", "tok-a"), { method: "POST" });
    expect(await again.json()).toMatchObject({ recorded: false });
    expect((await fetch(signed("terminate", "tok-b"))).status).toBe(200);
    expect((await fetch(signed("bogus", "tok-b"))).status).toBe(404);

    const list = (await (await service.request("/v1/outcomes?after=0", { headers: authorized })).json()) as {
      outcomes: { token: string }[];
      next: number;
    };
    expect(list.outcomes.map((each) => each.token)).toEqual(["tok-a", "tok-b"]);
    expect(list.next).toBe(2);
    const status = (await (await service.request("/v1/sync/status", { headers: authorized })).json()) as {
      loop: { surveys: { surveyId: number; lifetime: object }[]; outcomes: unknown };
    };
    expect(status.loop.surveys.map((survey) => ({ surveyId: survey.surveyId, ...survey.lifetime }))).toEqual([
      {
        surveyId: 9001,
        entries: 2,
        pending: 0,
        completes: 1,
        terminates: 1,
        overquotas: 0,
        securityTerminates: 0,
        reversals: 0,
        earnings: 2,
        conversion: 0.5,
        earningsPerEntry: 1,
      },
    ]);
    expect(status.loop.outcomes).toEqual({ complete: 1, terminate: 1, overquota: 0, security: 0 });
    const metrics = await (await service.request("/metrics")).text();
    expect(metrics).toContain('sds_sync_outcomes_total{outcome="complete"} 1');
    expect(metrics).not.toContain(outgoing.EncryptionKey ?? "");
  });

  it("serves the receiver on its own port when SYNC_OUTCOMES_PORT is set, and only there", async () => {
    const service = await start({ config: { outcomesPort: 0, outcomesPublicUrl: "https://panel.example/sds" } });
    expect(service.service.outcomesUrl).not.toBe(service.service.url);
    const signing = encryptionSigning(outgoing);
    if (!signing) throw new Error("outgoing encryption is enabled");
    const target = "/v1/outcomes/overquota?vq_token=tok-z";
    const signedPublic = signUrl(`https://panel.example/sds${target}`, signing.key, signing.scheme);
    const received = signedPublic.replace("https://panel.example/sds", service.service.outcomesUrl);
    expect((await fetch(received)).status).toBe(200);
    expect((await fetch(received.replace(service.service.outcomesUrl, service.service.url))).status).toBe(404);
    expect((await fetch(`${service.service.outcomesUrl}/v1/surveys`)).status).toBe(404);
  });
});
