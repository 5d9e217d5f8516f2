import {
  createSyncClient,
  isSyncBadRequestError,
  isSyncNotFoundError,
  isSyncRequestValidationError,
  type SyncClient,
} from "@sds/sync-client";
import type { FakeSupplierApi } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey, screenedSurvey } from "./loop-surveys.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * `@sds/sync-client`'s sessions and profiles against a real sds-sync, started in-process, over
 * HTTP: a session asked, answered, re-routed after a return and ended through the client, its
 * answers parsed with the schemas the routes answer with, and refusals as the client's errors.
 */

const TOKEN = "sync-client-sessions-token";

/** Language 3 (the fake's catalogue has question 43 in it): a dear survey for women (43 = 2) and two open to everyone. */
const surveys = [
  screenedSurvey(
    {
      SurveyId: 8300,
      LanguageId: 3,
      Cpi: "9.00",
      Ir: "70",
      Loi: "10",
      SurveyUrl: "https://survey.example.com/s/8300?rid=[%RID%]",
      Has_Survey_Groups: false,
      StudyTypeId: 1,
    },
    { question: 43, codes: ["2"] },
  ),
  loopSurvey(8301, { LanguageId: 3, Cpi: "1.50", Ir: "60", Loi: "10" }),
  loopSurvey(8302, { LanguageId: 3, Cpi: "1.40", Ir: "60", Loi: "10" }),
];

describe("@sds/sync-client's sessions against a running sds-sync", () => {
  let api: FakeSupplierApi;
  let harness: ServiceHarness;
  let sync: SyncClient;

  beforeAll(async () => {
    api = loopFake(surveys);
    harness = await startServiceHarness({ api, config: { apiToken: TOKEN } });
    sync = createSyncClient({ baseUrl: harness.service.url, token: TOKEN, env: {}, retry: false });
    await waitFor(() => harness.service.sessions.catalogue.report().askable > 0, 20_000);
  });
  afterAll(async () => {
    await harness.close();
    await api.close();
  });

  it("starts a session with its question, takes the answer, offers the survey, re-routes after a terminate and ends", async () => {
    const started = await sync.sessions.create({ uid: "c-1", languageId: 3, device: "mobile" });
    expect(started).toMatchObject({ uid: "c-1", languageId: 3, state: "open", questionsAsked: 0, attempts: [] });
    expect(started.next).toMatchObject({ kind: "question", qualificationId: 43, type: "single" });

    const wrong = await sync.sessions.answer(started.id, { "43": ["7"] }).catch((error: unknown) => error);
    expect(isSyncBadRequestError(wrong)).toBe(true);
    expect(wrong).toMatchObject({ status: 400, operation: "answerSession" });
    expect((wrong as Error).message).toContain("question 43");

    const answered = await sync.sessions.answer(started.id, { "43": ["2"] });
    expect(answered.questionsAsked).toBe(1);
    expect(answered.next).toMatchObject({ kind: "survey", surveyId: 8300 });
    const offered = answered.next.kind === "survey" ? answered.next : undefined;
    expect(offered?.link).toContain("/s/8300?rid=");

    // While its return is awaited, the step stays.
    expect((await sync.sessions.get(started.id)).next).toEqual(answered.next);

    // The survey sends the respondent back with a terminate: the session offers another survey.
    const back = await fetch(
      `${harness.service.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(offered?.token ?? "")}`,
      { redirect: "manual" },
    );
    expect(back.status).toBe(303);
    const rerouted = await sync.sessions.get(started.id, { explain: true });
    expect(rerouted.attempts[0]).toMatchObject({ surveyId: 8300, returned: "terminate" });
    expect(rerouted.next).toMatchObject({ kind: "survey", surveyId: 8301 });
    // The explanation is parsed with its schema: the surveys the order starts with, best first.
    expect(rerouted.explanation?.attemptsLeft).toBe(2);
    expect(rerouted.explanation?.surveys[0]).toMatchObject({ surveyId: 8301, cpiCents: 150 });

    const ended = await sync.sessions.end(started.id);
    expect(ended).toMatchObject({ state: "done", next: { kind: "done", reason: "ended" } });
    // Ending twice answers the ended session: the call is safe to retry.
    expect(await sync.sessions.end(started.id)).toEqual(ended);
  });

  it("reads and erases a respondent's profile", async () => {
    await sync.sessions.create({ uid: "c/2", languageId: 3, answers: { "43": ["1"] } });
    const profile = await sync.respondents.profile("c/2");
    const noRisk = { security: 0, reversals: 0, speeders: 0, score: 0 };
    expect(profile).toEqual({
      uid: "c/2",
      answers: [expect.objectContaining({ qualificationId: 43, languageId: 3, answers: ["1"], source: "api" })],
      risk: noRisk,
    });
    expect(await sync.respondents.eraseProfile("c/2")).toEqual({ uid: "c/2", erased: 1 });
    expect(await sync.respondents.profile("c/2")).toEqual({ uid: "c/2", answers: [], risk: noRisk });
  });

  it("refuses a body sds-sync would refuse before sending it, and says an unknown session is not found", async () => {
    const refused = await sync.sessions
      .create({ uid: "c-3", languageId: 3, returnUrl: "https://user:pass@panel.example/back" })
      .catch((error: unknown) => error);
    expect(isSyncRequestValidationError(refused)).toBe(true);
    expect(refused).toMatchObject({ attempts: 0, issues: [expect.objectContaining({ path: ["returnUrl"] })] });
    const missing = await sync.sessions.get("no-such-session").catch((error: unknown) => error);
    expect(isSyncNotFoundError(missing)).toBe(true);
    expect(missing).toMatchObject({ status: 404, operation: "getSession" });
  });
});
