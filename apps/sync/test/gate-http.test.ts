import {
  createFakeMarketplace,
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeMarketplace,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseConfig, SyncConfig } from "../src/config/config.ts";
import { waitFor } from "./harness.ts";
import { loopSurvey, screenedSurvey } from "./loop-surveys.ts";
import { postJson, receiveOutcome, unsignedOutcomes } from "./loop-traffic.ts";
import { storeCases } from "./store-cases.ts";
import { pointRedirectsAtReturn } from "./redirects-at-return.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The quality gate over real HTTP, on both stores (the rules that count are shared by replicas
 * through the loop store): each rule refuses with its code (403 `respondent_refused`, the
 * session done `excluded` with `gate`), is counted in `sds_sync_gate_refusals_total{reason}`
 * and in the status; speeders are flagged on the entry (the outcome feed) and the respondent
 * (the profile) and feed the score with security terminates and reversals.
 */

interface Step {
  readonly kind: "question" | "survey" | "done";
  readonly link?: string;
  readonly token?: string;
  readonly reason?: string;
  readonly gate?: string;
}
interface SessionView {
  readonly id: string;
  readonly state: string;
  readonly next: Step;
}
interface Refusal {
  readonly error: { readonly code: string; readonly message: string; readonly gate?: string };
}

/** Language 3 is "English - United States" (US) in the fake's Languages collection. */
const surveys = [
  screenedSurvey(
    {
      SurveyId: 9100,
      LanguageId: 3,
      Cpi: "9.00",
      Ir: "70",
      Loi: "10",
      SurveyUrl: "https://survey.example.com/s/9100?rid=[%RID%]",
      Has_Survey_Groups: false,
      StudyTypeId: 1,
    },
    { question: 43, codes: ["2"] },
  ),
  loopSurvey(9101, { LanguageId: 3, Cpi: "1.50", Ir: "60", Loi: "10" }),
  loopSurvey(9102, { LanguageId: 3, Cpi: "1.40", Ir: "60", Loi: "10" }),
  loopSurvey(9103, { LanguageId: 3, Cpi: "1.30", Ir: "60", Loi: "10" }),
];

const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

const { stores, postgres, postgresDatabase, usable } = storeCases("sds_gate");

describe.each(stores)("the quality gate over HTTP ($name)", (store) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(
    config: Partial<SyncConfig> = {},
  ): Promise<{ harness: ServiceHarness; marketplace: FakeMarketplace }> {
    const database = store.database();
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
    const harness = await startServiceHarness({ api, config, ...(database === undefined ? {} : { database }) });
    cleanups.push(() => harness.close());
    const marketplace = createFakeMarketplace({ api });
    await marketplace.listen();
    cleanups.push(() => marketplace.close());
    await pointRedirectsAtReturn(harness);
    // The first cycle stored the Languages collection and the questions: the session can ask and the geo rule knows the countries.
    await waitFor(() => harness.service.sessions.catalogue.report().askable > 0, 20_000);
    return { harness, marketplace };
  }

  async function json<T>(response: Response, status: number): Promise<T> {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    return JSON.parse(text) as T;
  }

  const begin = (harness: ServiceHarness, body: Record<string, unknown>) =>
    postJson(harness, "/v1/sessions", { languageId: 3, ...body });

  async function expectRefused(response: Response, gate: string): Promise<string> {
    const body = await json<Refusal>(response, 403);
    expect(body.error).toMatchObject({ code: "respondent_refused", gate });
    return body.error.message;
  }

  /** The session id a refusal names ("session <id> is done"). */
  const refusedSession = (message: string): string => /session (\S+) is done/.exec(message)?.[1] ?? "";

  async function refusalsCounted(harness: ServiceHarness): Promise<{ metric: string; status: Record<string, number> }> {
    const metric = await (await harness.request("/metrics")).text();
    const status = await json<{ loop: { gate: { refusals: Record<string, number> } } }>(
      await harness.request("/v1/sync/status"),
      200,
    );
    return { metric, status: status.loop.gate.refusals };
  }

  const skipWithoutPostgres = (context: { skip: () => void }) => {
    if (!usable(store)) context.skip();
  };

  it("refuses a user agent isbot knows (bot), explains it in the session, counts it, and lets a browser in", async (context) => {
    skipWithoutPostgres(context);
    const { harness } = await start();
    const message = await expectRefused(await begin(harness, { uid: "g-bot", userAgent: GOOGLEBOT }), "bot");
    const session = await json<SessionView>(await harness.request(`/v1/sessions/${refusedSession(message)}`), 200);
    expect(session).toMatchObject({ state: "done", next: { kind: "done", reason: "excluded", gate: "bot" } });
    await json<SessionView>(await begin(harness, { uid: "g-person", userAgent: FIREFOX }), 201);
    const counted = await refusalsCounted(harness);
    expect(counted.metric).toContain('sds_sync_gate_refusals_total{reason="bot"} 1');
    expect(counted.metric).toContain('sds_sync_gate_refusals_total{reason="geo"} 0');
    expect(counted.status).toMatchObject({ bot: 1, geo: 0, concurrent: 0 });
  });

  it("refuses more starts from one address than SYNC_MAX_STARTS_PER_IP_PER_HOUR (velocity-ip); a body without ip is the supplier's server and is not counted", async (context) => {
    skipWithoutPostgres(context);
    const { harness } = await start({ maxStartsPerIpPerHour: 2 });
    await json(await begin(harness, { uid: "ip-1", ip: "203.0.113.9" }), 201);
    await json(await begin(harness, { uid: "ip-2", ip: "203.0.113.9" }), 201);
    await expectRefused(await begin(harness, { uid: "ip-3", ip: "203.0.113.9" }), "velocity-ip");
    await json(await begin(harness, { uid: "ip-4", ip: "203.0.113.10" }), 201);
    for (const uid of ["ip-5", "ip-6", "ip-7"]) await json(await begin(harness, { uid }), 201);
    expect((await refusalsCounted(harness)).status["velocity-ip"]).toBe(1);
  });

  it("refuses more starts by one uid than SYNC_MAX_STARTS_PER_UID_PER_DAY (velocity-uid)", async (context) => {
    skipWithoutPostgres(context);
    const { harness } = await start({ maxStartsPerUidPerDay: 2, gateConcurrent: false });
    await json(await begin(harness, { uid: "busy" }), 201);
    await json(await begin(harness, { uid: "busy" }), 201);
    await expectRefused(await begin(harness, { uid: "busy" }), "velocity-uid");
    await json(await begin(harness, { uid: "calm" }), 201);
  });

  it("refuses a second open session of one uid (concurrent), admits one after the first ended, and SYNC_GATE_CONCURRENT=off turns it off", async (context) => {
    skipWithoutPostgres(context);
    const { harness } = await start();
    const first = await json<SessionView>(await begin(harness, { uid: "twice" }), 201);
    expect(first.state).toBe("open");
    const message = await expectRefused(await begin(harness, { uid: "twice" }), "concurrent");
    // The refused session is done at once: it keeps no one else out.
    expect(
      (await json<SessionView>(await harness.request(`/v1/sessions/${refusedSession(message)}`), 200)).next,
    ).toEqual({ kind: "done", reason: "excluded", gate: "concurrent" });
    await json(await postJson(harness, `/v1/sessions/${first.id}/end`, {}), 200);
    await json(await begin(harness, { uid: "twice" }), 201);

    const off = await start({ gateConcurrent: false });
    await json(await begin(off.harness, { uid: "twice" }), 201);
    await json(await begin(off.harness, { uid: "twice" }), 201);
  });

  it("refuses a device fingerprint already seen with another uid (duplicate-device), at the start and with answers", async (context) => {
    skipWithoutPostgres(context);
    const { harness } = await start();
    await json(await begin(harness, { uid: "dev-a", fingerprint: "fp-device-0001" }), 201);
    await expectRefused(await begin(harness, { uid: "dev-b", fingerprint: "fp-device-0001" }), "duplicate-device");
    // The same uid on its own device again is no duplicate.
    await json(await begin(harness, { uid: "dev-c", fingerprint: "fp-device-0002" }), 201);

    // The page posts the fingerprint with the first answer: a device another uid came with ends the session.
    const asked = await json<SessionView>(await begin(harness, { uid: "dev-d" }), 201);
    expect(asked.next.kind).toBe("question");
    await expectRefused(
      await postJson(harness, `/v1/sessions/${asked.id}/answers`, {
        answers: { "43": ["2"] },
        fingerprint: "fp-device-0001",
      }),
      "duplicate-device",
    );
    const ended = await json<SessionView>(await harness.request(`/v1/sessions/${asked.id}`), 200);
    expect(ended.next).toEqual({ kind: "done", reason: "excluded", gate: "duplicate-device" });
    // Nothing of the refused answers was kept.
    const profile = await json<{ answers: unknown[] }>(await harness.request("/v1/respondents/dev-d/profile"), 200);
    expect(profile.answers).toEqual([]);

    // A fingerprint of its own passes with the answers and is the session's from then on.
    const fresh = await json<SessionView>(await begin(harness, { uid: "dev-e" }), 201);
    const answered = await json<SessionView>(
      await postJson(harness, `/v1/sessions/${fresh.id}/answers`, {
        answers: { "43": ["2"] },
        fingerprint: "fp-device-0003",
      }),
      200,
    );
    expect(answered.next.kind).toBe("survey");
    await expectRefused(await begin(harness, { uid: "dev-f", fingerprint: "fp-device-0003" }), "duplicate-device");
    expect((await refusalsCounted(harness)).status["duplicate-device"]).toBe(3);
  });

  it("refuses an address in another country than the language's (geo) when SYNC_GATE_GEO is on; unknown addresses pass", async (context) => {
    skipWithoutPostgres(context);
    const { harness } = await start({ gateGeo: true });
    // 85.214.0.1 is in Germany; language 3 is the United States' (the Languages collection's CountryCode).
    await expectRefused(await begin(harness, { uid: "geo-de", ip: "85.214.0.1" }), "geo");
    await json(await begin(harness, { uid: "geo-us", ip: "8.8.8.8" }), 201);
    await json(await begin(harness, { uid: "geo-private", ip: "10.1.2.3" }), 201);
    await json(await begin(harness, { uid: "geo-loopback", ip: "::1" }), 201);

    // SYNC_LANGUAGE_COUNTRIES comes before the collection.
    const mapped = await start({ gateGeo: true, languageCountries: new Map([[3, "DE"]]) });
    await json(await begin(mapped.harness, { uid: "geo-de", ip: "85.214.0.1" }), 201);
    await expectRefused(await begin(mapped.harness, { uid: "geo-us", ip: "8.8.8.8" }), "geo");

    const off = await start();
    await json(await begin(off.harness, { uid: "geo-de", ip: "85.214.0.1" }), 201);
  });

  it("flags a speeding complete on the entry and the respondent, and refuses (score) once speeders, security terminates and reversals pass SYNC_RESPONDENT_MAX_RISK, before a survey step too", async (context) => {
    skipWithoutPostgres(context);
    const { harness, marketplace } = await start({ respondentMaxRisk: 4 });
    const first = await json<SessionView>(await begin(harness, { uid: "fast", answers: { "43": ["2"] } }), 201);
    expect(first.next.kind).toBe("survey");
    // Completed at once: far below 0.3 × the survey's 10 minutes.
    const entry = await marketplace.respond(first.next.link ?? "", "complete");
    expect((await fetch(entry.location ?? "", { redirect: "manual" })).status).toBe(303);
    const token = first.next.token ?? "";
    // The marketplace's S2S call records the outcome; its receipt says the entry is a speeder.
    const receipt = await fetch(
      `${harness.service.outcomesUrl}/v1/outcomes/complete?vq_token=${encodeURIComponent(token)}`,
    );
    expect(await json<{ recorded: boolean; outcome: { speeder?: boolean } }>(receipt, 200)).toMatchObject({
      recorded: true,
      outcome: { speeder: true },
    });
    const feed = await json<{ outcomes: { token: string; outcome: string; speeder?: boolean }[] }>(
      await harness.request("/v1/outcomes?after=0"),
      200,
    );
    expect(feed.outcomes).toEqual([expect.objectContaining({ token, outcome: "complete", speeder: true })]);
    const risky = await json<{ risk: { speeders: number; security: number; reversals: number; score: number } }>(
      await harness.request("/v1/respondents/fast/profile"),
      200,
    );
    expect(risky.risk).toEqual({ security: 0, reversals: 0, speeders: 1, score: 1 });

    // The first session is done (completed) once read: it keeps no later session of the uid out.
    expect((await json<SessionView>(await harness.request(`/v1/sessions/${first.id}`), 200)).state).toBe("done");
    // Another session of the uid begins under the limit, with a survey; another respondent's asks a question first.
    const third = await json<SessionView>(await begin(harness, { uid: "fast" }), 201);
    expect(third.next.kind).toBe("survey");
    const second = await json<SessionView>(await begin(harness, { uid: "fast-2" }), 201);
    expect(second.next.kind).toBe("question");
    // The buyer takes the complete back as a security terminate: 1 speeder + 1 reversal + 1 security = 1 + 2 + 3 = 6.
    const reconciled = await postJson(harness, "/v1/outcomes/reconcile", {
      outcomes: [{ token, outcome: "security" }],
    });
    expect(reconciled.status).toBe(200);
    const after = await json<{ risk: { score: number } }>(await harness.request("/v1/respondents/fast/profile"), 200);
    expect(after.risk).toEqual({ security: 1, reversals: 1, speeders: 1, score: 6 });

    // The survey ends in a terminate; before the next survey step, the gate reads the score again.
    const terminated = await marketplace.respond(third.next.link ?? "", "terminate");
    expect((await fetch(terminated.location ?? "", { redirect: "manual" })).status).toBe(303);
    await expectRefused(await harness.request(`/v1/sessions/${third.id}`), "score");
    expect((await json<SessionView>(await harness.request(`/v1/sessions/${third.id}`), 200)).next).toEqual({
      kind: "done",
      reason: "excluded",
      gate: "score",
    });
    await expectRefused(await begin(harness, { uid: "fast" }), "score");
    // Another respondent is not touched.
    const other = await json<SessionView>(
      await postJson(harness, `/v1/sessions/${second.id}/answers`, { answers: { "43": ["2"] } }),
      200,
    );
    expect(other.next.kind).toBe("survey");
    const counted = await refusalsCounted(harness);
    expect(counted.status.score).toBe(2);
    expect(counted.metric).toContain('sds_sync_gate_refusals_total{reason="score"} 2');
  });

  it("counts a security return in the risk once, even when the S2S call says it too", async (context) => {
    skipWithoutPostgres(context);
    const { harness, marketplace } = await start({ respondentMaxRisk: 2 });
    const session = await json<SessionView>(await begin(harness, { uid: "sec", answers: { "43": ["1"] } }), 201);
    const entry = await marketplace.respond(session.next.link ?? "", "security");
    expect((await fetch(entry.location ?? "", { redirect: "manual" })).status).toBe(303);
    await waitFor(async () => {
      const profile = await json<{ risk: { security: number } }>(
        await harness.request("/v1/respondents/sec/profile"),
        200,
      );
      return profile.risk.security === 1;
    }, 10_000);
    expect((await json<SessionView>(await harness.request(`/v1/sessions/${session.id}`), 200)).next).toEqual({
      kind: "done",
      reason: "excluded",
    });
    await receiveOutcome(harness, "security", session.next.token ?? "");
    const profile = await json<{ risk: { security: number; score: number } }>(
      await harness.request("/v1/respondents/sec/profile"),
      200,
    );
    expect(profile.risk).toMatchObject({ security: 1, score: 3 });
    await expectRefused(await begin(harness, { uid: "sec" }), "score");
  });
});

describe("the quality gate across PostgreSQL replicas", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("counts starts in the store: concurrent starts from one address on two replicas admit exactly the limit, and one open session of a uid", async (context) => {
    if (!postgres()) context.skip();
    const database: DatabaseConfig = postgresDatabase();
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
    const config: Partial<SyncConfig> = { maxStartsPerIpPerHour: 5 };
    const first = await startServiceHarness({ api, database, config, replicaId: "gate-a" });
    cleanups.push(() => first.close());
    const second = await startServiceHarness({ api, database, config, replicaId: "gate-b", followerPollMs: 60_000 });
    cleanups.push(() => second.close());
    await waitFor(() => second.service.loop.liveMatcher.matcher.size === surveys.length, 20_000);

    const starts = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        postJson(index % 2 === 0 ? first : second, "/v1/sessions", {
          uid: `rep-${index}`,
          languageId: 3,
          ip: "198.51.100.7",
        }),
      ),
    );
    const statuses = starts.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 403)).toHaveLength(15);

    // One uid starting on both replicas at once: one session opens, the other is refused (concurrent).
    const pair = await Promise.all(
      [first, second].map((replica) => postJson(replica, "/v1/sessions", { uid: "rep-same", languageId: 3 })),
    );
    expect(pair.map((response) => response.status).sort()).toEqual([201, 403]);
  });
});
