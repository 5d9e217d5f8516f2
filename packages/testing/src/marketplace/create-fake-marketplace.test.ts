import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildEntryLink, verifySignedUrl } from "@sds/routing";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeSupplierApi } from "../fake/create-fake-supplier-api.ts";
import type { FakeSupplierApi } from "../fake/types.ts";
import { createFakeMarketplace } from "./create-fake-marketplace.ts";
import type { FakeMarketplace, FakeMarketplaceOptions } from "./types.ts";

const SUPPLIER = 1001;
const OUTGOING = { Enabled: true, Algorithm: "SHA256", QueryParameter: "sig", EncryptionKey: "outgoing-secret-key" };

/** A stand-in S2S receiver that records raw request URLs and fails the first `failures` requests. */
async function startReceiver(failures = 0): Promise<{ origin: string; urls: string[]; server: Server }> {
  const urls: string[] = [];
  let remaining = failures;
  const server = createServer((request, response) => {
    urls.push(request.url ?? "");
    if (remaining > 0) {
      remaining--;
      response.writeHead(503).end();
      return;
    }
    response.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, urls, server };
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

async function setUp(receiverFailures = 0, s2s: FakeMarketplaceOptions["s2s"] = {}) {
  const receiver = await startReceiver(receiverFailures);
  opened.push({
    close: () =>
      new Promise<void>((resolve) =>
        receiver.server.close(() => {
          resolve();
        }),
      ),
  });
  const routes = (base: string) => ({
    Enabled: true,
    CompleteUrl: `${base}/complete?vq_token=[#vq_tid#]`,
    TerminateUrl: `${base}/terminate?vq_token=[#vq_tid#]`,
    OverQuotaUrl: `${base}/overquota?vq_token=[#vq_tid#]`,
    SecurityTerminateUrl: `${base}/security?vq_token=[#vq_tid#]`,
  });
  const api: FakeSupplierApi = createFakeSupplierApi({
    seed: 3,
    suppliers: [
      {
        supplierId: SUPPLIER,
        apiKey: "k",
        surveys: 12,
        account: { OutgoingEncryption: OUTGOING, S2SUrls: routes(`${receiver.origin}/v1/outcomes`) },
      },
    ],
  });
  const marketplace: FakeMarketplace = createFakeMarketplace({ api, s2s: { retryDelayMs: 1, ...s2s } });
  opened.push(marketplace);
  await marketplace.listen();
  const survey = api.listSurveys(SUPPLIER).find((candidate) => candidate.SurveyUrl.includes("[#vq_tid#]"));
  if (survey === undefined) throw new Error("the seeded fake has no survey with a [#vq_tid#] placeholder");
  const account = api.getAccount(SUPPLIER);
  const link = (token: string) =>
    buildEntryLink(survey, { token, uid: "resp-1" }, { encryption: account.IncomingEncryption });
  return { api, marketplace, receiver, survey, account, link };
}

describe("createFakeMarketplace", () => {
  it("seeds some surveys with [#vq_tid#] placeholders, in more than one spelling", () => {
    const api = createFakeSupplierApi({ suppliers: [{ supplierId: SUPPLIER, apiKey: "k", surveys: 12 }] });
    const urls = api.listSurveys(SUPPLIER).map((survey) => survey.SurveyUrl);
    expect(urls.filter((url) => /\[#vq_tid#\]/.test(url)).length).toBeGreaterThan(0);
    expect(urls.filter((url) => /\[#VQ_TID#\]"/.test(url)).length).toBeGreaterThan(0);
    expect(urls.filter((url) => url.includes("[%RID%]")).length).toBeGreaterThan(0);
  });

  it("admits a signed entry over HTTP, redirects to the account's URL and calls its S2S URL signed with OutgoingEncryption", async () => {
    const { marketplace, receiver, account, link } = await setUp();
    const result = await marketplace.respond(link("tok-1"), "complete");
    expect(result).toMatchObject({ status: 302, token: "tok-1", uid: "resp-1", outcome: "complete" });
    expect(result.location).toBe(account.RedirectUrls.CompleteUrl.replace("[%RID%]", "tok-1"));
    await marketplace.settle();
    expect(receiver.urls).toHaveLength(1);
    const url = `${receiver.origin}${receiver.urls[0] ?? ""}`;
    expect(url).toMatch(/\/v1\/outcomes\/complete\?vq_token=tok-1&sig=/);
    expect(verifySignedUrl(url, "outgoing-secret-key", { algorithm: "SHA256", parameter: "sig" })).toEqual({
      valid: true,
    });
  });

  it("screens out a respondent whose true answers miss the survey's qualifications, and draws for one who meets them", async () => {
    const { api, marketplace, survey, link } = await setUp();
    const qualifications = api.getSurvey(survey.SurveyId)?.qualifications ?? [];
    const [first] = qualifications;
    if (first === undefined) throw new Error("the survey needs a qualification for this test");
    const meets = Object.fromEntries(
      qualifications.map((record) => [String(record.QualificationId), [record.OptionCodes[0] ?? ""]]),
    );
    marketplace.tellAnswers("resp-1", { ...meets, [String(first.QualificationId)]: ["no-such-answer"] });
    for (let index = 0; index < 5; index++)
      expect(await marketplace.enter(link(`screened-${index}`))).toMatchObject({ outcome: "terminate" });
    marketplace.tellAnswers("resp-1", meets);
    const drawn = new Set<string>();
    for (let index = 0; index < 40; index++) drawn.add((await marketplace.enter(link(`drawn-${index}`))).outcome ?? "");
    expect(drawn.size).toBeGreaterThan(1);
  });

  it("refuses an unsigned or tampered entry link with 403 and the reason, and sends nothing", async () => {
    const { marketplace, receiver, link } = await setUp();
    const signed = link("tok-2");
    const unsigned = signed.slice(0, signed.lastIndexOf("&hash="));
    expect(await marketplace.respond(unsigned)).toMatchObject({
      status: 403,
      reason: expect.stringMatching(/^missing/) as unknown,
    });
    expect(await marketplace.respond(signed.replace("tok-2", "tok-3"))).toMatchObject({
      status: 403,
      reason: expect.stringMatching(/^mismatch/) as unknown,
    });
    await marketplace.settle();
    expect(receiver.urls).toEqual([]);
  });

  it("answers 404 for a closed survey", async () => {
    const { api, marketplace, survey, link } = await setUp();
    api.closeSurvey(survey.SurveyId);
    expect(await marketplace.respond(link("tok-4"))).toMatchObject({ status: 404 });
  });

  it("retries a failed S2S delivery until the receiver accepts it", async () => {
    const { marketplace, receiver, link } = await setUp(2);
    await marketplace.enter(link("tok-5"), { outcome: "terminate" });
    await marketplace.settle();
    expect(receiver.urls).toHaveLength(3);
    expect(marketplace.deliveries()).toEqual([
      expect.objectContaining({
        outcome: "terminate",
        delivered: true,
        attempts: [{ status: 503 }, { status: 503 }, { status: 200 }],
      }),
    ]);
  });

  it("repeats a delivered callback as real senders do, also concurrently", async () => {
    const { marketplace, receiver, link } = await setUp(0, { duplicates: 2, concurrentDuplicates: true });
    await marketplace.enter(link("tok-6"), { outcome: "overquota" });
    await marketplace.settle();
    expect(receiver.urls).toHaveLength(3);
    expect(new Set(receiver.urls).size).toBe(1);
    expect(marketplace.deliveries().filter((delivery) => delivery.duplicate)).toHaveLength(2);
  });
});
