import { createClient } from "@sds/client";
import { encryptionSigning, signUrl } from "@sds/routing";
import type { EncryptionSettings } from "@sds/schemas";
import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  RECONTACT_STUDY_TYPE_ID,
  type FakeSupplierApi,
  type SurveyInit,
} from "@sds/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { DatabaseConfig, SyncConfig } from "../src/config/config.ts";
import type { FetchFunction } from "../src/upstream/counting-fetch.ts";
import { waitFor } from "./harness.ts";
import { loopSurvey } from "./loop-surveys.ts";
import { postJson, readLoopFigures, readOutcomeFeed, unsignedOutcomes } from "./loop-traffic.ts";
import { storeCases } from "./store-cases.ts";
import { pointRedirectsAtReturn } from "./redirects-at-return.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The respondent's session attacked over real HTTP, on both stores: one session moved by many
 * requests at once (reads, answers, returns replayed, the S2S call racing the return, an end),
 * on two PostgreSQL replicas too; one address spelt several ways against velocity-ip; a signed
 * return that comes back after its session expired (the only word of a paid complete when the
 * account's S2S URLs are off). Revenue rests on: every outcome recorded exactly once, never a
 * survey twice in a session, never more attempts than the cap.
 */

interface Step {
  readonly kind: "question" | "survey" | "done";
  readonly surveyId?: number;
  readonly link?: string;
  readonly token?: string;
  readonly reason?: string;
}
interface SessionView {
  readonly id: string;
  readonly state: string;
  readonly attempts: { surveyId: number; token: string; returned?: string }[];
  readonly next: Step;
}

/** Language 3, open to everyone: every step of a session is a survey (no question pays). */
const surveys = [
  loopSurvey(8301, { LanguageId: 3, Cpi: "1.50", Ir: "60", Loi: "10" }),
  loopSurvey(8302, { LanguageId: 3, Cpi: "1.40", Ir: "60", Loi: "10" }),
  loopSurvey(8303, { LanguageId: 3, Cpi: "1.30", Ir: "60", Loi: "10" }),
  loopSurvey(8304, { LanguageId: 3, Cpi: "1.20", Ir: "60", Loi: "10" }),
  loopSurvey(8305, { LanguageId: 3, Cpi: "1.10", Ir: "60", Loi: "10" }),
];
/** Two prices and every Cpi that is not one: those the fake refuses to serve are stand-ins, rewritten on the wire. */
const pricedSurveys = [
  loopSurvey(8401, { LanguageId: 3, Cpi: "1.50", Ir: "60", Loi: "10" }),
  loopSurvey(8402, { LanguageId: 3, Cpi: "1.40", Ir: "60", Loi: "10" }),
  loopSurvey(8403, { LanguageId: 3, Cpi: "50000.00", Ir: "90", Loi: "1" }),
  loopSurvey(8404, { LanguageId: 3, Cpi: "-5", Ir: "90", Loi: "1" }),
  loopSurvey(8405, { LanguageId: 3, Cpi: "99999999999999999999999", Ir: "90", Loi: "1" }),
  loopSurvey(8406, { LanguageId: 3, Cpi: "12.3456789", Ir: "90", Loi: "1" }),
  loopSurvey(8407, { LanguageId: 3, Cpi: "901.01", Ir: "90", Loi: "1" }),
  loopSurvey(8408, { LanguageId: 3, Cpi: "902.02", Ir: "90", Loi: "1" }),
  loopSurvey(8409, { LanguageId: 3, Cpi: "903.03", Ir: "90", Loi: "1" }),
  loopSurvey(8410, { LanguageId: 3, Cpi: "904.04", Ir: "90", Loi: "1" }),
];
const onTheWire = new Map([
  ["901.01", "NaN"],
  ["902.02", "1e308"],
  ["903.03", "0x10"],
  ["904.04", "9".repeat(4000)],
]);

/** sds-sync's view of the fake: the stand-in Cpis replaced by the hostile ones. */
async function hostileCpis(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!(response.headers.get("content-type") ?? "").includes("json")) return response;
  let text = await response.text();
  for (const [standIn, hostile] of onTheWire) text = text.replaceAll(`"Cpi":"${standIn}"`, `"Cpi":"${hostile}"`);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}

/** Every number in a JSON value. */
function numbersIn(value: unknown): number[] {
  if (typeof value === "number") return [value];
  if (Array.isArray(value)) return value.flatMap(numbersIn);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(numbersIn);
  return [];
}

const cpiOf = new Map(surveys.map(({ survey }) => [survey?.SurveyId, Number(survey?.Cpi)]));

const { stores, postgres, postgresDatabase, usable } = storeCases("sds_session_attack");

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One sds-sync replica (or two on one PostgreSQL schema) against one fake, with the account's redirects at the return. */
async function startReplicas(
  database: DatabaseConfig | undefined,
  options: {
    readonly replicas?: 1 | 2;
    readonly config?: Partial<SyncConfig>;
    readonly outgoing?: EncryptionSettings;
    readonly sessionClock?: () => Date;
    readonly surveys?: readonly SurveyInit[];
    readonly fetch?: FetchFunction;
    /** How many surveys the matcher holds once it followed the start-up cycle. @default every survey served */
    readonly live?: number;
    /** Sets the fake up (survey groups, re-contact lists) before sds-sync reads it. */
    readonly prepare?: (api: FakeSupplierApi) => void;
  } = {},
): Promise<ServiceHarness[]> {
  const api = createFakeSupplierApi({
    suppliers: [
      {
        supplierId: DEFAULT_SUPPLIER_ID,
        apiKey: DEFAULT_API_KEY,
        surveys: [...(options.surveys ?? surveys)],
        account: { OutgoingEncryption: options.outgoing ?? unsignedOutcomes },
      },
    ],
  });
  cleanups.push(() => api.close());
  options.prepare?.(api);
  const replicas: ServiceHarness[] = [];
  for (let index = 0; index < (options.replicas ?? 1); index++) {
    const harness = await startServiceHarness({
      api,
      config: options.config ?? {},
      ...(database === undefined ? {} : { database }),
      ...(options.sessionClock === undefined ? {} : { sessionClock: options.sessionClock }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(index === 0 ? {} : { replicaId: `attack-${index}`, followerPollMs: 60_000 }),
    });
    cleanups.push(() => harness.close());
    replicas.push(harness);
  }
  const [first] = replicas;
  if (first === undefined) throw new Error("no replica started");
  await pointRedirectsAtReturn(first);
  const live = options.live ?? (options.surveys ?? surveys).length;
  await waitFor(() => replicas.every((replica) => replica.service.loop.liveMatcher.matcher.size === live), 20_000);
  return replicas;
}

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** What a racing request may answer: its success, or 503 session_busy (the session kept moving; the caller retries). */
async function settled(response: Response, success: number): Promise<void> {
  const text = await response.text();
  if (response.status === 503) expect(text).toContain("session_busy");
  else expect(response.status, text).toBe(success);
}

/** The session as stored, with what must always hold of it: distinct surveys, the cap, at most one step awaiting its return (the last). */
async function checkedSession(harness: ServiceHarness, id: string, maxAttempts: number): Promise<SessionView> {
  const session = await json<SessionView>(await harness.request(`/v1/sessions/${id}`), 200);
  const surveyIds = session.attempts.map((attempt) => attempt.surveyId);
  expect(new Set(surveyIds).size, JSON.stringify(surveyIds)).toBe(surveyIds.length);
  expect(surveyIds.length).toBeLessThanOrEqual(maxAttempts);
  const awaiting = session.attempts.filter((attempt) => attempt.returned === undefined);
  expect(awaiting.length).toBeLessThanOrEqual(1);
  if (awaiting[0] !== undefined) expect(awaiting[0]).toBe(session.attempts.at(-1));
  if (session.next.kind === "survey") expect(session.next.token).toBe(session.attempts.at(-1)?.token);
  return session;
}

/**
 * Moves one session to its end with every kind of request at once, spread over the replicas:
 * reads, answers, the return replayed, the S2S call for the same token; then checks the session,
 * the outcome feed (one record per entry) and the money (each complete counted once).
 */
async function raceSession(
  replicas: readonly ServiceHarness[],
  uid: string,
  outcomes: readonly ("terminate" | "overquota" | "complete")[],
) {
  const at = (index: number): ServiceHarness => replicas[index % replicas.length] ?? (replicas[0] as ServiceHarness);
  const first = at(0);
  const started = await json<SessionView>(await postJson(first, "/v1/sessions", { uid, languageId: 3 }), 201);
  expect(started.next.kind).toBe("survey");
  let session = started;
  for (const outcome of outcomes) {
    const token = session.next.token ?? "";
    const returnUrl = `${first.service.outcomesUrl}/v1/return/${outcome}?vq_token=${encodeURIComponent(token)}`;
    const s2sUrl = (index: number) =>
      `${at(index).service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`;
    const racing: Promise<void>[] = [];
    for (let index = 0; index < 6; index++) {
      racing.push(
        at(index)
          .request(`/v1/sessions/${session.id}`)
          .then((response) => settled(response, 200)),
      );
      racing.push(
        postJson(at(index + 1), `/v1/sessions/${session.id}/answers`, { answers: { "77": ["1"] } }).then((response) =>
          settled(response, 200),
        ),
      );
    }
    for (let index = 0; index < 3; index++) {
      racing.push(fetch(returnUrl, { redirect: "manual" }).then((response) => settled(response, 303)));
      racing.push(fetch(s2sUrl(index)).then((response) => settled(response, 200)));
    }
    await Promise.all(racing);
    session = await checkedSession(at(1), session.id, 3);
    expect(session.attempts.find((attempt) => attempt.token === token)?.returned).toBe(outcome);
    if (outcome === "complete") break;
  }
  const done = await checkedSession(first, session.id, 3);
  expect(done.state).toBe("done");
  const feed = (await readOutcomeFeed(first)).filter((record) =>
    done.attempts.some((attempt) => attempt.token === record.token),
  );
  // One record per entry: the replayed returns and the repeated S2S calls recorded nothing more.
  expect(feed.map((record) => record.token).sort()).toEqual(done.attempts.map((attempt) => attempt.token).sort());
  return done;
}

describe.each(stores)("a respondent's session under attack over HTTP ($name)", (store) => {
  const skipWithoutPostgres = (context: { skip: () => void }) => {
    if (!usable(store)) context.skip();
  };

  it("keeps distinct surveys, the attempts cap and one outcome per entry while reads, answers, replayed returns and S2S calls race", async (context) => {
    skipWithoutPostgres(context);
    const replicas = await startReplicas(store.database());
    const capped = await raceSession(replicas, "race-cap", ["terminate", "overquota", "terminate"]);
    expect(capped.next).toEqual({ kind: "done", reason: "attempts" });
    const paid = await raceSession(replicas, "race-paid", ["terminate", "complete"]);
    expect(paid.next).toEqual({ kind: "done", reason: "completed" });
    // The complete is money once, however many returns and S2S calls said it.
    const [harness] = replicas;
    if (harness === undefined) throw new Error("no replica");
    const figures = await readLoopFigures(harness);
    expect(figures.totals.lifetime).toMatchObject({ entries: 5, completes: 1, terminates: 3, overquotas: 1 });
    const completed = paid.attempts.at(-1)?.surveyId ?? 0;
    expect(figures.totals.lifetime.earnings).toBe(cpiOf.get(completed));
  });

  it("admits one open session of a uid when many starts race, and ends a session once while it is read and returned", async (context) => {
    skipWithoutPostgres(context);
    const [harness] = await startReplicas(store.database());
    if (harness === undefined) throw new Error("no replica");
    const starts = await Promise.all(
      Array.from({ length: 12 }, () => postJson(harness, "/v1/sessions", { uid: "race-start", languageId: 3 })),
    );
    expect(starts.map((response) => response.status).sort()).toEqual([201, ...Array<number>(11).fill(403)]);
    const admitted = starts.find((response) => response.status === 201);
    if (admitted === undefined) throw new Error("no start was admitted");
    const open = await json<SessionView>(admitted, 201);
    const token = open.next.token ?? "";
    const racing = await Promise.all([
      postJson(harness, `/v1/sessions/${open.id}/end`, {}),
      postJson(harness, `/v1/sessions/${open.id}/end`, {}),
      harness.request(`/v1/sessions/${open.id}`),
      fetch(`${harness.service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(token)}`, {
        redirect: "manual",
      }),
      harness.request(`/v1/sessions/${open.id}`),
    ]);
    expect(racing.map((response) => response.status).filter((status) => status >= 500)).toEqual([]);
    const ended = await checkedSession(harness, open.id, 3);
    expect(ended).toMatchObject({ state: "done", next: { kind: "done", reason: "ended" } });
    // The end closed the session for good: no survey step was offered after it.
    expect(ended.attempts).toHaveLength(1);
  });

  it("admits one uid per device fingerprint when different uids bring it at once, at the start and with answers (duplicate-device)", async (context) => {
    skipWithoutPostgres(context);
    const [harness] = await startReplicas(store.database());
    if (harness === undefined) throw new Error("no replica");
    const starts = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        postJson(harness, "/v1/sessions", {
          uid: `device-start-${index}`,
          languageId: 3,
          fingerprint: "fp-raced-0001",
        }),
      ),
    );
    expect(starts.map((response) => response.status).sort()).toEqual([201, ...Array<number>(9).fill(403)]);
    const sessions = await Promise.all(
      Array.from({ length: 10 }, async (_, index) =>
        json<SessionView>(
          await postJson(harness, "/v1/sessions", { uid: `device-answer-${index}`, languageId: 3 }),
          201,
        ),
      ),
    );
    const answered = await Promise.all(
      sessions.map((session) =>
        postJson(harness, `/v1/sessions/${session.id}/answers`, {
          answers: { "77": "1" },
          fingerprint: "fp-raced-0002",
        }),
      ),
    );
    expect(answered.map((response) => response.status).sort()).toEqual([200, ...Array<number>(9).fill(403)]);
  });

  it("refuses text a store cannot keep (a NUL) with 400 on both stores, never a 503 that invites retries", async (context) => {
    skipWithoutPostgres(context);
    const [harness] = await startReplicas(store.database());
    if (harness === undefined) throw new Error("no replica");
    for (const body of [
      { uid: "nul-answer", languageId: 3, answers: { "77": "a\u0000b" } },
      { uid: "nul-answers", languageId: 3, answers: { "77": ["1", "\u0000"] } },
      { uid: "nul-agent", languageId: 3, userAgent: "Mozilla/5.0\u0000" },
      { uid: "nul-device", languageId: 3, fingerprint: "fp-\u0000-0001" },
      { uid: "nul-return", languageId: 3, returnUrl: "https://panel.example/next\u0000?x=1" },
      { uid: "line-return", languageId: 3, returnUrl: "https://panel.example/next\r\nSet-Cookie: a=b" },
    ]) {
      const response = await postJson(harness, "/v1/sessions", body);
      expect(response.status, `${JSON.stringify(body)}: ${await response.text()}`).toBe(400);
    }
    const session = await json<SessionView>(
      await postJson(harness, "/v1/sessions", { uid: "nul-later", languageId: 3 }),
      201,
    );
    expect(
      (await postJson(harness, `/v1/sessions/${session.id}/answers`, { answers: { "77": "\u0000" } })).status,
    ).toBe(400);
    // A reconciliation's reason is kept with the outcome: a NUL there is the same 400.
    const reconciled = await postJson(harness, "/v1/outcomes/reconcile", {
      outcomes: [{ token: session.next.token, outcome: "complete", reason: "audit \u0000" }],
    });
    expect(reconciled.status, await reconciled.text()).toBe(400);
    // /v1/match keeps a uid's answers as its profile: the same text is refused there too.
    expect((await postJson(harness, "/v1/match", { uid: "nul-match", answers: { "77": ["\u0000"] } })).status).toBe(
      400,
    );
    // The store still answers: nothing above was taken for an outage.
    expect((await harness.request("/readyz")).status).toBe(200);
  });

  it("offers no survey whose upstream Cpi is not a price, and keeps the session's estimates and the earnings finite and exact", async (context) => {
    skipWithoutPostgres(context);
    const [harness] = await startReplicas(store.database(), {
      surveys: pricedSurveys,
      fetch: hostileCpis,
      config: { maxClosureShare: 1 },
      // The wire schema refuses NaN, 1e308 and 0x10; the cycle quarantines every other Cpi that is not a
      // price (above SYNC_MAX_CPI, negative, 7 decimals, 4,000 digits): only the two priced surveys are live.
      live: 2,
    });
    if (harness === undefined) throw new Error("no replica");
    const priced = new Set([8401, 8402]);
    const session = await json<SessionView>(
      await postJson(harness, "/v1/sessions", { uid: "money", languageId: 3 }),
      201,
    );
    expect(priced.has(session.next.surveyId ?? 0), JSON.stringify(session.next)).toBe(true);
    const back = await fetch(
      `${harness.service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(session.next.token ?? "")}`,
      { redirect: "manual" },
    );
    expect(back.status).toBe(303);
    const explained = await json<SessionView & { explanation?: { surveys: { surveyId: number }[] } }>(
      await harness.request(`/v1/sessions/${session.id}?explain=1`),
      200,
    );
    expect(explained.next.kind).toBe("survey");
    expect(priced.has(explained.next.surveyId ?? 0)).toBe(true);
    expect(explained.next.surveyId).not.toBe(session.next.surveyId);
    const considered = explained.explanation?.surveys.map((survey) => survey.surveyId) ?? [];
    expect(
      considered.every((surveyId) => priced.has(surveyId)),
      JSON.stringify(considered),
    ).toBe(true);
    for (const number of numbersIn(explained.explanation)) expect(Number.isFinite(number)).toBe(true);
    const completed = await fetch(
      `${harness.service.outcomesUrl}/v1/outcomes/complete?vq_token=${encodeURIComponent(explained.next.token ?? "")}`,
    );
    expect(completed.status).toBe(200);
    const figures = await readLoopFigures(harness);
    expect(figures.totals.lifetime).toMatchObject({ entries: 2, completes: 1 });
    expect(figures.totals.lifetime.earnings).toBe(explained.next.surveyId === 8401 ? 1.5 : 1.4);
    for (const number of numbersIn(figures)) expect(Number.isFinite(number)).toBe(true);
  });

  it("keeps the buyer's rules across sessions of one uid moved at once: one survey of a group, no re-contact study not meant for them, the daily cap", async (context) => {
    skipWithoutPostgres(context);
    const [GROUP, A, B, C] = [7300, 8501, 8502, 8503] as const;
    const ruled = [
      loopSurvey(A, { LanguageId: 3, Cpi: "4.00", Ir: "60", Loi: "10", Has_Survey_Groups: true }),
      loopSurvey(B, { LanguageId: 3, Cpi: "3.90", Ir: "60", Loi: "10", Has_Survey_Groups: true }),
      loopSurvey(C, { LanguageId: 3, Cpi: "9.00", Ir: "60", Loi: "10", StudyTypeId: RECONTACT_STUDY_TYPE_ID }),
      ...surveys,
    ];
    const [harness] = await startReplicas(store.database(), {
      surveys: ruled,
      config: { gateConcurrent: false, maxEntriesPerDay: 4, maxClosureShare: 1 },
      prepare: (api) => {
        api.addToSurveyGroup(GROUP, A);
        api.addToSurveyGroup(GROUP, B);
        api.replaceRecontactRespondents(C, [{ PID: "someone-else" }]);
      },
    });
    if (harness === undefined) throw new Error("no replica");
    // The leader reads the groups and the re-contact list after its first cycle; until then A, B and C wait out of routing.
    await waitFor(async () => {
      const status = await json<{
        loop: { inventoryData: { groups: { surveys: number }; recontact: { studies: number } } };
      }>(await harness.request("/v1/sync/status"), 200);
      return status.loop.inventoryData.groups.surveys >= 2 && status.loop.inventoryData.recontact.studies >= 1;
    }, 20_000);
    const sessions = await Promise.all(
      Array.from({ length: 8 }, async () =>
        json<SessionView>(await postJson(harness, "/v1/sessions", { uid: "ruled", languageId: 3 }), 201),
      ),
    );
    // Each session's survey ends in a terminate at once; every session moves on, all together.
    for (let round = 0; round < 3; round++) {
      const current = await Promise.all(
        sessions.map(async (session) => json<SessionView>(await harness.request(`/v1/sessions/${session.id}`), 200)),
      );
      await Promise.all(
        current
          .filter((session) => session.next.kind === "survey")
          .map((session) =>
            fetch(
              `${harness.service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(session.next.token ?? "")}`,
              { redirect: "manual" },
            ),
          ),
      );
    }
    const offered = (await Promise.all(sessions.map((session) => checkedSession(harness, session.id, 3)))).flatMap(
      (session) => session.attempts.map((attempt) => attempt.surveyId),
    );
    // Never one survey twice for the respondent, never both of a group, never C, never past the cap.
    expect(new Set(offered).size, JSON.stringify(offered)).toBe(offered.length);
    expect(offered.filter((surveyId) => surveyId === A || surveyId === B)).toHaveLength(1);
    expect(offered).not.toContain(C);
    expect(offered).toHaveLength(4);
  });

  it("drops a short survey's entry on time behind more than a sweep's batch of long ones still pending", async (context) => {
    skipWithoutPostgres(context);
    const [LONG, SHORT] = [8601, 8602] as const;
    const [harness] = await startReplicas(store.database(), {
      surveys: [
        loopSurvey(LONG, { LanguageId: 3, Cpi: "2.00", Ir: "60", Loi: "60" }),
        loopSurvey(SHORT, { LanguageId: 3, Cpi: "1.00", Ir: "60", Loi: "1" }),
      ],
      config: { dropAfterLoi: 3 },
    });
    if (harness === undefined) throw new Error("no replica");
    // 1,001 respondents in the hour-long survey first (more than one sweep reads at once), then one in the minute-long one.
    for (let first = 0; first < 1001; first += 50) {
      const issued = await Promise.all(
        Array.from({ length: Math.min(50, 1001 - first) }, (_, index) =>
          postJson(harness, "/v1/entry-links", {
            surveyId: LONG,
            token: `long-${first + index}`,
            uid: `long-${first + index}`,
          }),
        ),
      );
      expect(issued.map((response) => response.status).filter((status) => status !== 201)).toEqual([]);
    }
    expect(
      (await postJson(harness, "/v1/entry-links", { surveyId: SHORT, token: "short-1", uid: "short-1" })).status,
    ).toBe(201);
    // Ten minutes on: the minute-long survey's entry is past 3 × its Loi, the hour-long ones are not.
    expect(await harness.service.sessions.sweepDrops(new Date(Date.now() + 10 * 60_000))).toBe(1);
    expect(await readOutcomeFeed(harness)).toEqual([
      expect.objectContaining({ token: "short-1", outcome: "terminate", source: "timeout" }),
    ]);
  });

  it("sends the respondent back to the returnUrl with its query's bytes as given and session= added", async (context) => {
    skipWithoutPostgres(context);
    const [harness] = await startReplicas(store.database());
    if (harness === undefined) throw new Error("no replica");
    // A supplier's page that signs its own query verifies the same bytes it gave.
    const returnUrl = "https://panel.example/back?name=J%20Doe&mark=~x&sig=ab%2Bcd";
    const session = await json<SessionView>(
      await postJson(harness, "/v1/sessions", { uid: "bytes", languageId: 3, returnUrl }),
      201,
    );
    const back = await fetch(
      `${harness.service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(session.next.token ?? "")}`,
      { redirect: "manual" },
    );
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe(`${returnUrl}&session=${session.id}`);
  });

  it("answers 503 session_busy to an end it could not record, never a survey step after it", async (context) => {
    skipWithoutPostgres(context);
    const [harness] = await startReplicas(store.database());
    if (harness === undefined) throw new Error("no replica");
    const session = await json<SessionView>(
      await postJson(harness, "/v1/sessions", { uid: "end-busy", languageId: 3 }),
      201,
    );
    const token = session.next.token ?? "";
    expect(
      (
        await fetch(`${harness.service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(token)}`, {
          redirect: "manual",
        })
      ).status,
    ).toBe(303);
    // Every round of the end loses its race (another request moved the session each time).
    const { store: loopStore } = harness.service.loop;
    const write = loopStore.write.bind(loopStore);
    const raced = vi
      .spyOn(loopStore, "write")
      .mockImplementation(((description: string, program: never) =>
        description === "ending a session" ? Promise.resolve(false) : write(description, program)) as never);
    const ended = await postJson(harness, `/v1/sessions/${session.id}/end`, {});
    raced.mockRestore();
    expect(ended.status, await ended.clone().text()).toBe(503);
    expect(await ended.text()).toContain("session_busy");
    // Retried, as the 503 asks: the session ends, and no survey was offered after the end was asked for.
    const retried = await json<SessionView>(await postJson(harness, `/v1/sessions/${session.id}/end`, {}), 200);
    expect(retried.next).toEqual({ kind: "done", reason: "ended" });
    expect(retried.attempts).toHaveLength(1);
  });

  it("counts one address however the body spells it (velocity-ip)", async (context) => {
    skipWithoutPostgres(context);
    const [harness] = await startReplicas(store.database(), { config: { maxStartsPerIpPerHour: 2 } });
    if (harness === undefined) throw new Error("no replica");
    const begin = (uid: string, ip: string) => postJson(harness, "/v1/sessions", { uid, languageId: 3, ip });
    await json(await begin("spelt-1", "203.0.113.9"), 201);
    await json(await begin("spelt-2", "::ffff:203.0.113.9"), 201);
    for (const [index, ip] of ["::FFFF:203.0.113.9", "::ffff:cb00:7109", "0:0:0:0:0:ffff:cb00:7109"].entries())
      expect((await begin(`spelt-v4-${index}`, ip)).status, ip).toBe(403);
    await json(await begin("v6-1", "2001:db8::7"), 201);
    await json(await begin("v6-2", "2001:DB8:0:0:0:0:0:7"), 201);
    expect((await begin("v6-3", "2001:0db8::0:7")).status).toBe(403);
    // An IPv6 subscriber holds a /64 at least (privacy addresses rotate inside it): the /64 is the address counted.
    await json(await begin("v6-block-1", "2001:db8:5:6::1"), 201);
    await json(await begin("v6-block-2", "2001:db8:5:6:a:b:c:d"), 201);
    expect((await begin("v6-block-3", "2001:db8:5:6:ffff:ffff:ffff:fffe")).status).toBe(403);
    await json(await begin("v6-next-block", "2001:db8:5:7::1"), 201);
  });

  it("records a signed return as the outcome when the account's S2S URLs are off, even once its session expired", async (context) => {
    skipWithoutPostgres(context);
    const outgoing: EncryptionSettings = {
      Enabled: true,
      Algorithm: "SHA1",
      QueryParameter: "sig",
      EncryptionKey: "s2s-secret-key-02",
    };
    let offsetMs = 0;
    const [harness] = await startReplicas(store.database(), {
      outgoing,
      config: { sessionTtlSeconds: 600 },
      sessionClock: () => new Date(Date.now() + offsetMs),
    });
    if (harness === undefined) throw new Error("no replica");
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
    const session = await json<SessionView>(
      await postJson(harness, "/v1/sessions", { uid: "late", languageId: 3 }),
      201,
    );
    const token = session.next.token ?? "";
    // The respondent spends longer in the survey than the session lives: the buyer still pays the complete.
    offsetMs = 601_000;
    const signing = encryptionSigning(outgoing);
    if (signing === undefined) throw new Error("the test's encryption must sign");
    const url = `${harness.service.outcomesUrl}/v1/return/complete?vq_token=${encodeURIComponent(token)}`;
    const back = await fetch(signUrl(url, signing.key, signing.scheme), { redirect: "manual" });
    expect(back.status).toBe(404);
    const feed = await readOutcomeFeed(harness);
    expect(feed).toEqual([expect.objectContaining({ token, outcome: "complete", source: "redirect" })]);
    // An unsigned one still records nothing.
    expect((await fetch(url, { redirect: "manual" })).status).toBe(403);
    expect(await readOutcomeFeed(harness)).toHaveLength(1);
    expect((await readLoopFigures(harness)).totals.lifetime).toMatchObject({ entries: 1, completes: 1 });

    // The same signed return replayed at once, by the browser and whoever copied the URL: one outcome, money once.
    offsetMs = 0;
    const replayed = await json<SessionView>(
      await postJson(harness, "/v1/sessions", { uid: "replayed", languageId: 3 }),
      201,
    );
    const signedUrl = signUrl(
      `${harness.service.outcomesUrl}/v1/return/complete?vq_token=${encodeURIComponent(replayed.next.token ?? "")}`,
      signing.key,
      signing.scheme,
    );
    const replays = await Promise.all(Array.from({ length: 8 }, () => fetch(signedUrl, { redirect: "manual" })));
    expect(replays.map((response) => response.status)).toEqual(Array<number>(8).fill(303));
    const feed2 = await readOutcomeFeed(harness);
    expect(feed2.filter((record) => record.token === replayed.next.token)).toHaveLength(1);
    const figures = (await readLoopFigures(harness)).totals.lifetime;
    expect(figures).toMatchObject({ entries: 2, completes: 2 });
    expect(figures.earnings).toBe(
      (cpiOf.get(session.next.surveyId ?? 0) ?? NaN) + (cpiOf.get(replayed.next.surveyId ?? 0) ?? NaN),
    );
  });
});

describe("a respondent's session raced across two PostgreSQL replicas", () => {
  it("keeps distinct surveys, the attempts cap and one outcome per entry", async (context) => {
    if (!postgres()) context.skip();
    const replicas = await startReplicas(postgresDatabase(), { replicas: 2 });
    const capped = await raceSession(replicas, "replica-cap", ["overquota", "terminate", "terminate"]);
    expect(capped.next).toEqual({ kind: "done", reason: "attempts" });
    const paid = await raceSession(replicas, "replica-paid", ["complete"]);
    expect(paid.next).toEqual({ kind: "done", reason: "completed" });
    const [harness] = replicas;
    if (harness === undefined) throw new Error("no replica");
    expect((await readLoopFigures(harness)).totals.lifetime).toMatchObject({ entries: 4, completes: 1 });
    // One uid starting a dozen times on both replicas at once: one open session (concurrent).
    const starts = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        postJson(replicas[index % 2] ?? harness, "/v1/sessions", { uid: "replica-start", languageId: 3 }),
      ),
    );
    expect(starts.map((response) => response.status).sort()).toEqual([201, ...Array<number>(11).fill(403)]);
  });
});
