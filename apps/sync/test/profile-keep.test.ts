import { afterEach, describe, expect, it } from "vitest";
import { answerCounts } from "../src/session/profile-records.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { postJson } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { storeCases } from "./store-cases.ts";

/*
 * The answers a match brings are kept as the respondent's profile (`POST /v1/match` with a uid),
 * and a stored answer stands for SYNC_PROFILE_TTL_DAYS (30) from when it was last given: a
 * supplier that sends the same answers every day keeps them standing, at the cost of one write a
 * day per respondent, not one per match.
 */

const DAY = 86_400_000;
const t0 = new Date("2026-03-01T10:00:00.000Z");

interface ProfileView {
  readonly answers: readonly {
    readonly qualificationId: number;
    readonly answers: string[];
    readonly answeredAt: string;
  }[];
}

const { stores, usable } = storeCases("sds_profile_keep");

describe.each(stores)("a match's answers kept in the profile ($name)", (store) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(clock: () => Date): Promise<ServiceHarness> {
    const database = store.database();
    const harness = await startServiceHarness({
      api: loopFake([loopSurvey(9301, { LanguageId: 3, Cpi: "1.50", Ir: "60" })]),
      sessionClock: clock,
      ...(database === undefined ? {} : { database }),
    });
    cleanups.push(() => harness.close());
    return harness;
  }

  async function answeredAt(harness: ServiceHarness, uid: string): Promise<Record<string, string>> {
    const response = await harness.request(`/v1/respondents/${uid}/profile`);
    expect(response.status).toBe(200);
    const profile = (await response.json()) as ProfileView;
    return Object.fromEntries(profile.answers.map((answer) => [answer.qualificationId, answer.answeredAt]));
  }

  it("moves an answer given again on once it is a day old, never its counts", async (context) => {
    if (!usable(store)) context.skip();
    let now = t0;
    const harness = await start(() => now);
    const match = async (answers: Record<string, string[]>) => {
      const response = await postJson(harness, "/v1/match", { uid: "keeper", languageId: 3, answers });
      expect(response.status).toBe(200);
    };
    await match({ "43": ["1"], "61": ["2"] });
    expect(await answeredAt(harness, "keeper")).toEqual({ "43": t0.toISOString(), "61": t0.toISOString() });

    // Within a day the same answers write nothing.
    now = new Date(t0.getTime() + DAY / 2);
    await match({ "43": ["1"], "61": ["2"] });
    expect(await answeredAt(harness, "keeper")).toEqual({ "43": t0.toISOString(), "61": t0.toISOString() });

    // 29 days on, given again: they stand from now (a session 31 days after t0 still has them).
    const later = new Date(t0.getTime() + 29 * DAY);
    now = later;
    await match({ "43": ["1"] });
    expect(await answeredAt(harness, "keeper")).toEqual({ "43": later.toISOString(), "61": t0.toISOString() });

    // Each answer counted once, however often it was written again.
    const counts = await harness.service.loop.store.read(answerCounts(3));
    expect(Object.fromEntries(counts.get(43) ?? [])).toEqual({ "1": 1 });
    expect(Object.fromEntries(counts.get(61) ?? [])).toEqual({ "2": 1 });
  });

  it("keeps a match that moves more answer counts than one many-row write holds, each answer counted once", async (context) => {
    if (!usable(store)) context.skip();
    const harness = await start(() => t0);
    // 2,600 questions of two options (44 KB, inside the 64 KiB body): replacing them moves 10,400
    // counts, past the 5,000 rows one many-row statement carries.
    const questions = Array.from({ length: 2600 }, (_, index) => String(index + 1));
    for (const given of [
      ["a", "b"],
      ["c", "d"],
    ]) {
      const answers = Object.fromEntries(questions.map((question) => [question, given]));
      const response = await postJson(harness, "/v1/match", { uid: "many", languageId: 3, answers });
      expect(response.status, await response.clone().text()).toBe(200);
    }
    const counts = await harness.service.loop.store.read(answerCounts(3));
    expect(counts.size).toBe(2600);
    for (const [question, answers] of counts)
      expect(Object.fromEntries(answers), String(question)).toEqual({ c: 1, d: 1 });
  });
});
