import { createClient } from "@sds/client";
import { signUrl, encryptionSigning } from "@sds/routing";
import type { EncryptionSettings } from "@sds/schemas";
import {
  createFakeMarketplace,
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeMarketplace,
  type RespondentOutcome,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import { waitFor } from "./harness.ts";
import { loopSurvey, screenedSurvey } from "./loop-surveys.ts";
import { postJson, unsignedOutcomes } from "./loop-traffic.ts";
import { pointRedirectsAtReturn } from "./redirects-at-return.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { storeCases } from "./store-cases.ts";

/*
 * The respondent's session over real HTTP, on both stores: the contract, re-routing after a
 * terminate, the attempts cap, security ends, forged and unknown returns, drops, erasure, and
 * (PostgreSQL) a session continued on a second replica.
 */

interface Step {
  readonly kind: "question" | "survey" | "done";
  readonly qualificationId?: number;
  readonly options?: { code: string; text: string }[];
  readonly surveyId?: number;
  readonly link?: string;
  readonly token?: string;
  readonly reason?: string;
}
interface SessionBody {
  readonly id: string;
  readonly state: string;
  readonly questionsAsked: number;
  readonly attempts: { surveyId: number; token: string; returned?: string }[];
  readonly next: Step;
  readonly explanation?: {
    questions: { qualificationId: number; gainCents: number }[];
    surveys: { surveyId: number }[];
  };
}

/** Surveys in language 3 (the fake's catalogue has none in 1): a dear one for women (gender 43, code 2), and four open to everyone, dearest first. */
const surveys = [
  screenedSurvey(
    {
      SurveyId: 8100,
      LanguageId: 3,
      Cpi: "9.00",
      Ir: "70",
      Loi: "10",
      SurveyUrl: "https://survey.example.com/s/8100?rid=[%RID%]",
      Has_Survey_Groups: false,
      StudyTypeId: 1,
    },
    { question: 43, codes: ["2"] },
  ),
  loopSurvey(8101, { LanguageId: 3, Cpi: "1.50", Ir: "60", Loi: "10" }),
  loopSurvey(8102, { LanguageId: 3, Cpi: "1.40", Ir: "60", Loi: "10" }),
  loopSurvey(8103, { LanguageId: 3, Cpi: "1.30", Ir: "60", Loi: "10" }),
  loopSurvey(8104, { LanguageId: 3, Cpi: "1.20", Ir: "60", Loi: "10" }),
  // Language 1: the fake's QualificationDetailById answers 404 there, so question 43 cannot be asked in it.
  screenedSurvey(
    {
      SurveyId: 8200,
      Cpi: "20.00",
      Ir: "90",
      Loi: "10",
      SurveyUrl: "https://survey.example.com/s/8200?rid=[%RID%]",
      Has_Survey_Groups: false,
      StudyTypeId: 1,
    },
    { question: 43, codes: ["2"] },
  ),
  loopSurvey(8201, { Cpi: "1.00", Ir: "60", Loi: "10" }),
];

const { stores, postgres, postgresDatabase, usable } = storeCases("sds_session");

describe.each(stores)("the respondent's session over HTTP ($name)", (store) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(
    config: Record<string, unknown> = {},
    outgoing: EncryptionSettings = unsignedOutcomes,
    sessionClock?: () => Date,
  ): Promise<{
    harness: ServiceHarness;
    marketplace: FakeMarketplace;
    database: DatabaseConfig | undefined;
  }> {
    const database = store.database();
    const api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [...surveys],
          account: { OutgoingEncryption: outgoing },
        },
      ],
    });
    cleanups.push(() => api.close());
    const harness = await startServiceHarness({
      api,
      config,
      ...(database === undefined ? {} : { database }),
      ...(sessionClock === undefined ? {} : { sessionClock }),
    });
    cleanups.push(() => harness.close());
    const marketplace = createFakeMarketplace({ api });
    await marketplace.listen();
    cleanups.push(() => marketplace.close());
    await pointRedirectsAtReturn(harness);
    await waitFor(() => harness.service.sessions.catalogue.report().askable > 0, 20_000);
    return { harness, marketplace, database };
  }

  async function json<T>(response: Response, status: number): Promise<T> {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    return JSON.parse(text) as T;
  }

  /** The respondent takes the survey: the marketplace ends it and the browser follows the redirect to sds-sync's return. */
  async function takeSurvey(marketplace: FakeMarketplace, link: string, outcome: RespondentOutcome): Promise<Response> {
    const entry = await marketplace.respond(link, outcome);
    expect(entry.location).toBeDefined();
    return fetch(entry.location ?? "", { redirect: "manual" });
  }

  it("asks what pays, offers the survey it opened, takes the respondent back and re-routes after a terminate", async (context) => {
    if (!usable(store)) context.skip();
    const { harness, marketplace } = await start();
    const started = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", {
        uid: "r-1",
        languageId: 3,
        returnUrl: "https://panel.example/next?x=1",
      }),
      201,
    );
    expect(started.id).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(started).toMatchObject({ uid: "r-1", languageId: 3, state: "open", questionsAsked: 0, attempts: [] });
    // The 9.00 survey needs gender: asking pays more than the question's 8 seconds.
    expect(started.next).toMatchObject({ kind: "question", qualificationId: 43, type: "single" });
    expect(started.next.options?.map((option) => option.code)).toEqual(["1", "2"]);

    const wrong = await harness.request(`/v1/sessions/${started.id}/answers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ answers: { "43": ["7"] } }),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("question 43");

    const answered = await json<SessionBody>(
      await postJson(harness, `/v1/sessions/${started.id}/answers`, { answers: { "43": ["2"] } }),
      200,
    );
    expect(answered.questionsAsked).toBe(1);
    expect(answered.next).toMatchObject({ kind: "survey", surveyId: 8100 });
    expect(answered.attempts).toEqual([expect.objectContaining({ surveyId: 8100, token: answered.next.token })]);
    // While its return is awaited, the step stays.
    const again = await json<SessionBody>(await harness.request(`/v1/sessions/${started.id}`), 200);
    expect(again.next).toEqual(answered.next);

    // The entry is recorded as POST /v1/entry-links records one: a second link for the same survey is refused.
    const twice = await postJson(harness, "/v1/entry-links", { surveyId: 8100, token: "other-token", uid: "r-1" });
    expect(twice.status).toBe(409);

    const returned = await takeSurvey(marketplace, answered.next.link ?? "", "terminate");
    expect(returned.status).toBe(303);
    expect(returned.headers.get("location")).toBe(`https://panel.example/next?x=1&session=${started.id}`);

    const rerouted = await json<SessionBody>(await harness.request(`/v1/sessions/${started.id}?explain=1`), 200);
    expect(rerouted.attempts[0]).toMatchObject({ surveyId: 8100, returned: "terminate" });
    expect(rerouted.next).toMatchObject({ kind: "survey", surveyId: 8101 });
    expect(rerouted.next.surveyId).not.toBe(8100);

    const completed = await takeSurvey(marketplace, rerouted.next.link ?? "", "complete");
    expect(completed.status).toBe(303);
    const done = await json<SessionBody>(await harness.request(`/v1/sessions/${started.id}`), 200);
    expect(done).toMatchObject({ state: "done", next: { kind: "done", reason: "completed" } });

    // The answer is the respondent's profile: a match with the uid and no answers uses it.
    const profile = await json<{ answers: { qualificationId: number; source: string }[] }>(
      await harness.request("/v1/respondents/r-1/profile"),
      200,
    );
    expect(profile.answers).toEqual([
      expect.objectContaining({ qualificationId: 43, answers: ["2"], source: "session" }),
    ]);
    const matched = await json<{ eligible: number }>(
      await postJson(harness, "/v1/match", { uid: "r-2-none", languageId: 3 }),
      200,
    );
    expect(matched.eligible).toBe(4);
  });

  it("stops at the attempts cap, ends a security terminate without re-routing, and ends on request", async (context) => {
    if (!usable(store)) context.skip();
    const { harness, marketplace } = await start();
    const open = async (uid: string) =>
      json<SessionBody>(await postJson(harness, "/v1/sessions", { uid, languageId: 3, answers: { "43": ["1"] } }), 201);
    const capped = await open("r-cap");
    let step = capped.next;
    for (const outcome of ["terminate", "overquota", "terminate"] as const) {
      expect(step.kind).toBe("survey");
      expect((await takeSurvey(marketplace, step.link ?? "", outcome)).status).toBe(303);
      step = (await json<SessionBody>(await harness.request(`/v1/sessions/${capped.id}`), 200)).next;
    }
    expect(step).toEqual({ kind: "done", reason: "attempts" });
    const tried = (await json<SessionBody>(await harness.request(`/v1/sessions/${capped.id}`), 200)).attempts.map(
      (each) => each.surveyId,
    );
    expect(new Set(tried).size).toBe(3);

    const secure = await open("r-security");
    expect((await takeSurvey(marketplace, secure.next.link ?? "", "security")).status).toBe(303);
    expect((await json<SessionBody>(await harness.request(`/v1/sessions/${secure.id}`), 200)).next).toEqual({
      kind: "done",
      reason: "excluded",
    });

    const ended = await open("r-end");
    expect((await json<SessionBody>(await postJson(harness, `/v1/sessions/${ended.id}/end`, {}), 200)).next).toEqual({
      kind: "done",
      reason: "ended",
    });
    expect((await harness.request("/v1/sessions/no-such-session")).status).toBe(404);
  });

  it("answers 404 to unknown tokens and returns before entries, and moves only the token's own session", async (context) => {
    if (!usable(store)) context.skip();
    const { harness } = await start();
    const base = harness.service.outcomesUrl;
    expect((await fetch(`${base}/v1/return/complete?vq_token=never-issued`, { redirect: "manual" })).status).toBe(404);
    expect((await fetch(`${base}/v1/return/bogus?vq_token=x`, { redirect: "manual" })).status).toBe(404);
    const first = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", { uid: "r-a", languageId: 3, answers: { "43": ["1"] } }),
      201,
    );
    const second = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", { uid: "r-b", languageId: 3, answers: { "43": ["1"] } }),
      201,
    );
    // The hostile marketplace returns the second session's token: only the second session moves.
    const other = await fetch(`${base}/v1/return/terminate?vq_token=${encodeURIComponent(second.next.token ?? "")}`, {
      redirect: "manual",
    });
    expect(other.status).toBe(303);
    expect(other.headers.get("location")).toBe(`/s/${encodeURIComponent(second.id)}`);
    expect((await json<SessionBody>(await harness.request(`/v1/sessions/${first.id}`), 200)).next).toEqual(first.next);
    expect(
      (await json<SessionBody>(await harness.request(`/v1/sessions/${second.id}`), 200)).attempts[0]?.returned,
    ).toBe("terminate");
    // The respondent page thanks them for the survey and offers the next one.
    const page = await fetch(`${base}/s/${encodeURIComponent(second.id)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Thank you for taking part in the last survey.");
    expect(html).toContain(`action="/s/${second.id}/go"`);
  });

  it("refuses an unsigned return when the account signs outcomes, and records a signed one as the outcome without S2S", async (context) => {
    if (!usable(store)) context.skip();
    const outgoing: EncryptionSettings = {
      Enabled: true,
      Algorithm: "SHA1",
      QueryParameter: "sig",
      EncryptionKey: "s2s-secret-key-01",
    };
    const { harness } = await start({}, outgoing);
    // The account's S2S URLs are disabled: the marketplace calls no receiver.
    const sds = createClient({ baseUrl: harness.fake.baseUrl, apiKey: DEFAULT_API_KEY });
    const { data: account } = await sds.account.get();
    const s2s = `${harness.service.outcomesUrl}/v1/outcomes`;
    await sds.account.updateS2SRedirectUrls(account.Id, {
      Enabled: false,
      CompleteUrl: `${s2s}/complete?vq_token=[%RID%]`,
      TerminateUrl: `${s2s}/terminate?vq_token=[%RID%]`,
      OverQuotaUrl: `${s2s}/overquota?vq_token=[%RID%]`,
      SecurityTerminateUrl: `${s2s}/security?vq_token=[%RID%]`,
    });
    await harness.service.loop.account.refresh();
    const session = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", { uid: "r-signed", languageId: 3, answers: { "43": ["1"] } }),
      201,
    );
    const url = `${harness.service.outcomesUrl}/v1/return/complete?vq_token=${encodeURIComponent(session.next.token ?? "")}`;
    const forged = await fetch(url, { redirect: "manual" });
    expect(forged.status).toBe(403);
    expect((await json<SessionBody>(await harness.request(`/v1/sessions/${session.id}`), 200)).next).toEqual(
      session.next,
    );
    const signing = encryptionSigning(outgoing);
    if (signing === undefined) throw new Error("the test's encryption must sign");
    const signed = await fetch(signUrl(url, signing.key, signing.scheme), { redirect: "manual" });
    expect(signed.status).toBe(303);
    expect((await json<SessionBody>(await harness.request(`/v1/sessions/${session.id}`), 200)).next).toEqual({
      kind: "done",
      reason: "completed",
    });
    // The account's S2S URLs are disabled: the signed return is the outcome, with source redirect.
    const feed = await json<{ outcomes: { token: string; outcome: string; source: string }[] }>(
      await harness.request("/v1/outcomes?after=0"),
      200,
    );
    expect(feed.outcomes).toEqual([
      expect.objectContaining({ token: session.next.token, outcome: "complete", source: "redirect" }),
    ]);
  });

  it("never asks a question whose detail answers 404, and reports it with the routing data", async (context) => {
    if (!usable(store)) context.skip();
    const { harness } = await start();
    const status = await json<{ loop: { inventoryData: { questions: { missing: number; askable: number } } } }>(
      await harness.request("/v1/sync/status"),
      200,
    );
    expect(status.loop.inventoryData.questions).toMatchObject({ missing: 1, askable: 1 });
    const session = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", { uid: "r-lang-1", languageId: 1 }),
      201,
    );
    expect(session.next).toMatchObject({ kind: "survey", surveyId: 8201 });
    // Answers passed still match: a woman gets the survey behind the question that cannot be asked.
    const told = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", { uid: "r-lang-1b", languageId: 1, answers: { "43": ["2"] } }),
      201,
    );
    expect(told.next).toMatchObject({ kind: "survey", surveyId: 8200 });
  });

  it("expires a session after its TTL: done (expired), and its token's return is a 404", async (context) => {
    if (!usable(store)) context.skip();
    let offsetMs = 0;
    const { harness } = await start({ sessionTtlSeconds: 60 }, unsignedOutcomes, () => new Date(Date.now() + offsetMs));
    const session = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", { uid: "r-expiry", languageId: 3, answers: { "43": ["1"] } }),
      201,
    );
    expect(session.next.kind).toBe("survey");
    offsetMs = 61_000;
    const expired = await json<SessionBody>(await harness.request(`/v1/sessions/${session.id}`), 200);
    expect(expired).toMatchObject({ state: "done", next: { kind: "done", reason: "expired" } });
    const back = await fetch(
      `${harness.service.outcomesUrl}/v1/return/complete?vq_token=${encodeURIComponent(session.next.token ?? "")}`,
      { redirect: "manual" },
    );
    expect(back.status).toBe(404);
  });

  it("takes a drop as a failed entry and moves the session on; erases a profile but keeps the history", async (context) => {
    if (!usable(store)) context.skip();
    const { harness } = await start({ dropAfterLoi: 3 });
    const session = await json<SessionBody>(
      await postJson(harness, "/v1/sessions", { uid: "r-drop", languageId: 3, answers: { "43": ["1"] } }),
      201,
    );
    const first = session.next;
    expect(first.kind).toBe("survey");
    expect(await harness.service.sessions.sweepDrops(new Date(Date.now() + 29 * 60_000))).toBe(0);
    expect(await harness.service.sessions.sweepDrops(new Date(Date.now() + 31 * 60_000))).toBe(1);
    const moved = await json<SessionBody>(await harness.request(`/v1/sessions/${session.id}`), 200);
    expect(moved.attempts[0]).toMatchObject({ surveyId: first.surveyId, returned: "drop" });
    expect(moved.next.kind).toBe("survey");
    expect(moved.next.surveyId).not.toBe(first.surveyId);
    const feed = await json<{ outcomes: { token: string; outcome: string; source: string }[] }>(
      await harness.request("/v1/outcomes?after=0"),
      200,
    );
    expect(feed.outcomes).toContainEqual(
      expect.objectContaining({ token: first.token, outcome: "terminate", source: "timeout" }),
    );

    const erased = await harness.request("/v1/respondents/r-drop/profile", { method: "DELETE" });
    expect(await json<{ erased: number }>(erased, 200)).toMatchObject({ erased: 1 });
    expect(
      (await json<{ answers: unknown[] }>(await harness.request("/v1/respondents/r-drop/profile"), 200)).answers,
    ).toEqual([]);
    const history = await postJson(harness, "/v1/entry-links", {
      surveyId: first.surveyId,
      token: "again",
      uid: "r-drop",
    });
    expect(history.status).toBe(409);
  });
});

describe("a respondent's session across PostgreSQL replicas", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("is begun on one replica and goes on on another, one entry per step", async (context) => {
    if (!postgres()) context.skip();
    const database = postgresDatabase();
    const api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [...surveys],
          account: { OutgoingEncryption: unsignedOutcomes },
        },
      ],
    });
    cleanups.push(() => api.close());
    const first = await startServiceHarness({ api, database, replicaId: "replica-a" });
    cleanups.push(() => first.close());
    const second = await startServiceHarness({ api, database, replicaId: "replica-b", followerPollMs: 60_000 });
    cleanups.push(() => second.close());
    await waitFor(
      () =>
        first.service.sessions.catalogue.report().askable > 0 &&
        second.service.sessions.catalogue.report().askable > 0 &&
        second.service.loop.liveMatcher.matcher.size === surveys.length,
      20_000,
    );
    const started = (await (
      await postJson(first, "/v1/sessions", { uid: "r-replicas", languageId: 3 })
    ).json()) as SessionBody;
    expect(started.next).toMatchObject({ kind: "question", qualificationId: 43 });
    // The answer goes to the other replica; both then read the same survey step.
    const answered = await postJson(second, `/v1/sessions/${started.id}/answers`, { answers: { "43": ["2"] } });
    expect(answered.status).toBe(200);
    const onSecond = (await answered.json()) as SessionBody;
    expect(onSecond.next).toMatchObject({ kind: "survey", surveyId: 8100 });
    const [fromFirst, fromSecond] = await Promise.all([
      first.request(`/v1/sessions/${started.id}`).then((response) => response.json() as Promise<SessionBody>),
      second.request(`/v1/sessions/${started.id}`).then((response) => response.json() as Promise<SessionBody>),
    ]);
    expect(fromFirst.next).toEqual(onSecond.next);
    expect(fromSecond.next).toEqual(onSecond.next);
    // The return reaches the first replica; both replicas re-route to one next survey, recorded once.
    const back = await fetch(
      `${first.service.outcomesUrl}/v1/return/overquota?vq_token=${encodeURIComponent(onSecond.next.token ?? "")}`,
      {
        redirect: "manual",
      },
    );
    expect(back.status).toBe(303);
    const [a, b] = await Promise.all([
      first.request(`/v1/sessions/${started.id}`).then((response) => response.json() as Promise<SessionBody>),
      second.request(`/v1/sessions/${started.id}`).then((response) => response.json() as Promise<SessionBody>),
    ]);
    expect(a.next).toEqual(b.next);
    expect(a.next.kind).toBe("survey");
    const final = (await (await first.request(`/v1/sessions/${started.id}`)).json()) as SessionBody;
    expect(final.attempts).toHaveLength(2);
  });
});
