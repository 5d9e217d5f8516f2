import { beforeEach, describe, expect, it } from "vitest";
import type { LoopStore } from "../src/loop/store/loop-store.ts";
import { startSession } from "../src/session/gated-writes.ts";
import { readRespondent, readSession, readSessionWithRespondent } from "../src/session/session-records.ts";
import { answerCounts, readProfile, storeAnswers } from "../src/session/profile-records.ts";
import { issueAttempt, takeReturn } from "../src/session/attempt-records.ts";
import { readQuestions, writeQuestions } from "../src/session/question-records.ts";
import { storesPerTest, type StoreLocation } from "./store-harness.ts";
import { StoreError } from "../src/common/errors.ts";
import { execute } from "../src/database/program.ts";
import { command } from "../src/database/statement.ts";

/*
 * The session's store programs on both stores: PostgreSQL writes a session's answers and a
 * return in one statement each (data-modifying CTEs) where SQLite runs plain statements, so both
 * must leave the same rows behind.
 */

const t0 = new Date("2026-03-01T10:00:00.000Z");
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const LANGUAGE = 3;

/** Starts session `id` of `uid` at t0 as POST /v1/sessions does without a quality gate; the respondent's facts it read. */
async function start(
  store: LoopStore,
  id: string,
  uid: string,
  options: { readonly answers?: ReadonlyMap<number, readonly string[]>; readonly ttlSeconds?: number } = {},
) {
  const started = await store.write(
    "starting",
    startSession(
      {
        id,
        body: { uid, languageId: LANGUAGE },
        answers: options.answers ?? new Map(),
        now: t0,
        ttlSeconds: options.ttlSeconds ?? 3600,
      },
      undefined,
      undefined,
    ),
  );
  if (started.refused !== undefined) throw new Error(`refused: ${started.refused}`);
  return started.respondent;
}

/** Offers `surveyId` in session `sessionId` at `version` under `token` (admitted by every rule). */
function offer(store: LoopStore, sessionId: string, uid: string, version: number, token: string, surveyId = 7) {
  return store.write(
    "offering a survey",
    issueAttempt(
      store.recordingSettings,
      { sessionId, version, position: 0, link: `https://survey.example.com/${token}` },
      { token, surveyId, uid, cpi: 1.5, at: later(10) },
      () => undefined,
    ),
  );
}

/** The answer counts of the test's language as plain objects. */
async function counts(store: LoopStore): Promise<Record<number, Record<string, number>>> {
  const read = await store.read(answerCounts(LANGUAGE));
  return Object.fromEntries([...read].map(([question, answers]) => [question, Object.fromEntries(answers)]));
}

/** The behaviour of the session's store programs, run against both loop stores. */
export function describeSessionRecordsConformance(
  name: string,
  createHarness: () => Promise<StoreLocation<LoopStore>>,
): void {
  describe(`${name} session records`, () => {
    const open = storesPerTest(createHarness);
    let store: LoopStore;
    beforeEach(async () => {
      store = await open();
    });

    // State and returns have CHECK constraints; the reason and the device are plain text columns.
    it("reads an unknown reason or device of a stored session as a StoreError, never as a guess", async () => {
      await start(store, "s1", "u1");
      await offer(store, "s1", "u1", 0, "tok-1");
      for (const [column, value] of [
        ["done_reason", "vanished"],
        ["device", "watch"],
      ] as const) {
        const corrupt = command<[string]>(`UPDATE loop_sessions SET ${column} = ?`);
        await store.write("corrupting", execute(corrupt, value));
        await expect(store.read(readSession("s1")), column).rejects.toThrow(StoreError);
        await expect(store.read(readSession("s1")), column).rejects.toThrow(JSON.stringify(value));
        const mend = command<[]>(`UPDATE loop_sessions SET ${column} = NULL`);
        await store.write("mending", execute(mend));
      }
      expect(await store.read(readSession("s1"))).toMatchObject({ state: "open", doneReason: null, device: null });
      expect((await store.read(readSession("s1")))?.attempts).toHaveLength(1);
    });

    it("reads an unknown outcome of an offered survey's entry as a StoreError, never as a return", async () => {
      await start(store, "s1", "u1");
      await offer(store, "s1", "u1", 0, "tok-1");
      await store.write("corrupting", execute(command<[]>("UPDATE loop_entries SET outcome = 'completed'")));
      await expect(store.read(readSession("s1"))).rejects.toThrow(StoreError);
      await expect(store.read(readSession("s1"))).rejects.toThrow('"completed"');
      await expect(store.read(readSessionWithRespondent("s1", new Date()))).rejects.toThrow(StoreError);
    });

    // The answers column is plain text holding a JSON array: anything else was read as no answer.
    it("reads a stored answer list that is not a JSON array of texts as a StoreError, never as no answer", async () => {
      await start(store, "s1", "u1", { answers: new Map([[43, ["2"]]]) });
      for (const stored of ["not json", '{"43":"2"}', "[2]"]) {
        await store.write(
          "corrupting",
          execute(command<[string]>("UPDATE loop_profile_answers SET answers = ?"), stored),
        );
        await expect(store.read(readProfile("u1")), stored).rejects.toThrow(StoreError);
        await expect(store.read(readRespondent("u1", new Date())), stored).rejects.toThrow(StoreError);
        await expect(store.read(readSessionWithRespondent("s1", new Date())), stored).rejects.toThrow(StoreError);
        // Replacing it would take back counts of answers nobody can read.
        const replacing = storeAnswers({
          uid: "u1",
          languageId: LANGUAGE,
          answers: new Map([[43, ["1"]]]),
          source: "api",
          at: later(5).toISOString(),
        });
        await expect(store.write("answering", replacing), stored).rejects.toThrow(StoreError);
        // In a session too (one statement on PostgreSQL): nothing written, the session not moved on.
        const inSession = storeAnswers(
          {
            uid: "u1",
            languageId: LANGUAGE,
            answers: new Map([[43, ["1"]]]),
            source: "session",
            at: later(6).toISOString(),
          },
          { id: "s1", version: 0 },
        );
        await expect(store.write("answering", inSession), stored).rejects.toThrow(StoreError);
        expect((await store.read(readSession("s1")))?.version, stored).toBe(0);
      }
      expect(await counts(store)).toEqual({ 43: { "2": 1 } });
    });

    it("reads a stored question that says ok without a detail it can ask from as a StoreError, never as unreadable", async () => {
      const read = { languageId: LANGUAGE, qualificationId: 43, problem: null, fetchedAt: t0.toISOString() };
      await store.write(
        "storing questions",
        writeQuestions([{ ...read, status: "ok", detail: { text: "Age?", type: "numeric", options: [] } }]),
      );
      expect(await store.read(readQuestions())).toMatchObject([{ status: "ok", detail: { text: "Age?" } }]);
      for (const stored of [null, "not json", '{"text":"Age?","type":"dropdown","options":[]}']) {
        await store.write(
          "corrupting",
          execute(command<[string | null]>("UPDATE loop_questions SET detail = ?"), stored),
        );
        await expect(store.read(readQuestions()), String(stored)).rejects.toThrow(StoreError);
      }
    });

    it("keeps the counts exact when one respondent's answers to one question are written at once by many", async () => {
      // Twenty writers (match or start calls with the uid's answers, say) race on one profile row,
      // the first of them creating it: whatever order they land in, one answer remains, counted once.
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.write(
            "answering",
            storeAnswers({
              uid: "u-race",
              languageId: LANGUAGE,
              answers: new Map([[43, [String(index % 3)]]]),
              source: "api",
              at: later(index).toISOString(),
            }),
          ),
        ),
      );
      const [kept] = await store.read(readProfile("u-race"));
      const counted = (await counts(store))[43] ?? {};
      // Answers no profile holds any more count 0 (or are not listed at all).
      const nonZero = Object.fromEntries(Object.entries(counted).filter(([, count]) => count !== 0));
      expect(nonZero).toEqual({ [kept?.answers[0] ?? "none"]: 1 });
    });

    it("writes the answers of many respondents at once without a deadlock, whatever order their questions come in", async () => {
      // Respondents share the count rows of their answers: writers that locked them in the order their
      // questions came would wait on each other in a cycle (PostgreSQL aborts one: "deadlock detected").
      const questions = Array.from({ length: 12 }, (_, index) => 100 + index);
      const writes = Array.from({ length: 24 }, (_, index) => {
        const order = index % 2 === 0 ? questions : [...questions].reverse();
        return store.write(
          "answering",
          storeAnswers({
            uid: `u-order-${index}`,
            languageId: LANGUAGE,
            answers: new Map(order.map((question) => [question, ["1", "2"]])),
            source: "api",
            at: later(index).toISOString(),
          }),
        );
      });
      expect(await Promise.all(writes)).toEqual(writes.map(() => true));
      const counted = await counts(store);
      for (const question of questions) expect(counted[question]).toEqual({ "1": 24, "2": 24 });
    });

    it("replaces a respondent's earlier answers: the counts move by the difference, each answer once per question", async () => {
      await start(store, "s1", "u1", { answers: new Map([[43, ["2"]]]) });
      expect(await counts(store)).toEqual({ 43: { "2": 1 } });
      const answers = new Map([
        [43, ["1"]],
        [61, ["a", "b", "a"]],
      ]);
      const input = {
        uid: "u1",
        languageId: LANGUAGE,
        answers,
        source: "session" as const,
        at: later(5).toISOString(),
      };
      expect(await store.write("answering", storeAnswers(input, { id: "s1", version: 0 }))).toBe(true);
      expect(await counts(store)).toEqual({ 43: { "1": 1 }, 61: { a: 1, b: 1 } });
      expect(await store.read(readProfile("u1"))).toEqual([
        { qualificationId: 43, languageId: LANGUAGE, answers: ["1"], source: "session", answeredAt: input.at },
        {
          qualificationId: 61,
          languageId: LANGUAGE,
          answers: ["a", "b", "a"],
          source: "session",
          answeredAt: input.at,
        },
      ]);
      // The same answer again moves no count.
      const again = { ...input, answers: new Map([[43, ["1"]]]) };
      expect(await store.write("answering", storeAnswers(again, { id: "s1", version: 1 }))).toBe(true);
      expect(await counts(store)).toEqual({ 43: { "1": 1 }, 61: { a: 1, b: 1 } });
      expect(await store.read(readSession("s1"))).toMatchObject({ questionsAsked: 3, version: 2, fingerprint: null });
      // A fingerprint passed with answers is kept, the first one standing.
      for (const [version, fingerprint] of [
        [2, "fp-1"],
        [3, "fp-2"],
      ] as const)
        expect(await store.write("answering", storeAnswers(again, { id: "s1", version, fingerprint }))).toBe(true);
      expect(await store.read(readSession("s1"))).toMatchObject({ version: 4, fingerprint: "fp-1" });
    });

    it("writes no answer of a session that moved meanwhile", async () => {
      await start(store, "s1", "u1");
      const input = {
        uid: "u1",
        languageId: LANGUAGE,
        answers: new Map([[43, ["2"]]]),
        source: "session" as const,
        at: later(5).toISOString(),
      };
      expect(await store.write("answering", storeAnswers(input, { id: "s1", version: 4 }))).toBe(false);
      expect(await store.read(readProfile("u1"))).toEqual([]);
      expect(await counts(store)).toEqual({});
      expect(await store.read(readSession("s1"))).toMatchObject({ questionsAsked: 0, version: 0 });
    });

    it("reads a session with its respondent's profile and history in one program, as the single reads do", async () => {
      await start(store, "s1", "u1", { answers: new Map([[43, ["2"]]]) });
      await start(store, "s2", "u2", { answers: new Map([[43, ["1"]]]) });
      expect((await offer(store, "s1", "u1", 0, "tok-1")).kind).toBe("issued");
      await store.recordEntry({ token: "old", surveyId: 9, uid: "u1", cpi: 1, at: t0 });
      await store.recordEntry({ token: "other", surveyId: 9, uid: "u2", cpi: 1, at: t0 });
      const read = await store.read(readSessionWithRespondent("s1", t0));
      expect(read?.session).toEqual(await store.read(readSession("s1")));
      expect(read?.respondent.profile).toEqual(await store.read(readProfile("u1")));
      expect(read?.respondent.history).toEqual(await store.respondentHistory("u1", t0));
      expect(read?.respondent.history.entries.map((entry) => entry.surveyId).sort()).toEqual([7, 9]);
      expect(read?.respondent.history.last24h).toEqual({ entries: 2, completes: 0 });
      expect(await store.read(readRespondent("u1", t0))).toEqual(read?.respondent);
      expect(await store.read(readRespondent("nobody", t0))).toEqual({
        profile: [],
        history: { entries: [], last24h: { entries: 0, completes: 0 } },
      });
      // A new session reads its respondent as it is stored, with or without answers given.
      const facts = await store.read(readRespondent("u1", t0));
      expect(await start(store, "s3", "u1")).toEqual(facts);
      expect((await start(store, "s4", "u1", { answers: new Map([[61, ["b"]]]) })).profile).toEqual([
        ...facts.profile,
        expect.objectContaining({ qualificationId: 61, answers: ["b"], source: "api" }),
      ]);
      expect(await store.read(readSessionWithRespondent("nothing", t0))).toBeUndefined();
    });

    it("records an attempt only on the session's current version, and else no entry either", async () => {
      await start(store, "s1", "u1");
      expect((await offer(store, "s1", "u1", 3, "tok-1")).kind).toBe("stale");
      expect(await store.read(readSession("s1"))).toMatchObject({ version: 0, attempts: [] });
      // The entry went back with the attempt: no entry without its attempt, and no count of it.
      expect((await store.respondentHistory("u1", t0)).entries).toEqual([]);
      expect(await store.conversion()).toEqual([]);
      expect((await offer(store, "s1", "u1", 0, "tok-1")).kind).toBe("issued");
      expect(await store.read(readSession("s1"))).toMatchObject({
        version: 1,
        attempts: [{ token: "tok-1", position: 0, surveyId: 7, returned: null }],
      });
    });

    it("takes a return once, on a live session's attempt; tells an entry outside sessions from an unknown token", async () => {
      await start(store, "s1", "u1");
      await offer(store, "s1", "u1", 0, "tok-1");
      expect(await store.write("returning", takeReturn("tok-1", "terminate", later(20)))).toEqual({
        kind: "attempt",
        sessionId: "s1",
        returnUrl: null,
        expiresAt: later(3600).toISOString(),
      });
      expect(await store.read(readSession("s1"))).toMatchObject({
        version: 2,
        attempts: [{ token: "tok-1", returned: "terminate", returnedAt: later(20).toISOString() }],
      });
      // The first return decides: a second one changes nothing.
      expect((await store.write("returning", takeReturn("tok-1", "complete", later(30)))).kind).toBe("attempt");
      expect(await store.read(readSession("s1"))).toMatchObject({ version: 2, attempts: [{ returned: "terminate" }] });

      await store.recordEntry({ token: "plain", surveyId: 9, uid: "u3", cpi: 1, at: t0 });
      expect(await store.write("returning", takeReturn("plain", "complete", later(20)))).toEqual({ kind: "entry" });
      expect(await store.write("returning", takeReturn("nobody", "complete", later(20)))).toEqual({ kind: "unknown" });
    });

    it("records no return on a session that expired", async () => {
      await start(store, "s1", "u1", { ttlSeconds: 15 });
      await offer(store, "s1", "u1", 0, "tok-1");
      expect((await store.write("returning", takeReturn("tok-1", "terminate", later(20)))).kind).toBe("attempt");
      expect(await store.read(readSession("s1"))).toMatchObject({ version: 1, attempts: [{ returned: null }] });
    });
  });
}
