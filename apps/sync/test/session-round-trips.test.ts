import pg from "pg";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { geoLite2Countries } from "../src/gate/country-lookup.ts";
import { QualityGate, type GateRules } from "../src/gate/quality-gate.ts";
import type { LoopStore } from "../src/loop/store/loop-store.ts";
import { openPostgresLoopStore } from "../src/loop/store/postgres-loop-store.ts";
import { startSession } from "../src/session/gated-writes.ts";
import { finishSession, readSessionWithRespondent } from "../src/session/session-records.ts";
import { answerCounts, readProfile, storeAnswers } from "../src/session/profile-records.ts";
import { issueAttempt, takeReturn } from "../src/session/attempt-records.ts";
import { storeCases } from "./store-cases.ts";

/*
 * The round trips of a session's store programs on PostgreSQL (every statement sent is one,
 * BEGIN and COMMIT included), counted at the driver: what a step costs besides its HTTP request
 * (docs/respondent-loop.md). `bench:session-http` counts them per step over HTTP.
 */

/** Only its PostgreSQL half: the store opens in the suite's beforeAll, after storeCases' own checked PostgreSQL. */
const { postgres, postgresDatabase } = storeCases("sds_session_trips");
const t0 = new Date("2026-03-01T10:00:00.000Z");

describe("a session's store programs on PostgreSQL", () => {
  let store: LoopStore;
  beforeAll(async () => {
    if (!postgres()) return;
    const { connectionString, schema } = postgresDatabase();
    store = await openPostgresLoopStore({ connectionString, schema, poolSize: 2 });
  });
  afterAll(async () => {
    if (postgres()) await store.close();
  });

  /** What `work` sent to PostgreSQL, BEGIN and COMMIT included. */
  async function sent<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const query = vi.spyOn(pg.Client.prototype, "query");
    try {
      const result = await work();
      const statements = query.mock.calls.map(([config]: readonly unknown[]) =>
        typeof config === "string" ? config : (config as { text: string }).text,
      );
      return { result, statements };
    } finally {
      query.mockRestore();
    }
  }

  it("starts, reads, answers, offers, returns and ends in the round trips the docs give", async (context) => {
    if (!postgres()) context.skip();
    const start = await sent(() =>
      store.write(
        "starting",
        startSession(
          { id: "s1", body: { uid: "u1", languageId: 3 }, answers: new Map(), now: t0, ttlSeconds: 3600 },
          undefined,
          undefined,
        ),
      ),
    );
    expect(start.result).toEqual({
      respondent: { profile: [], history: { entries: [], last24h: { entries: 0, completes: 0 } } },
    });
    expect(start.statements).toHaveLength(1);

    const read = await sent(() => store.read(readSessionWithRespondent("s1", t0)));
    expect(read.result?.session).toMatchObject({ id: "s1", version: 0 });
    expect(read.statements).toHaveLength(1);

    const answers = { uid: "u1", languageId: 3, source: "session" as const, at: t0.toISOString() };
    const answered = await sent(() =>
      store.write("answering", storeAnswers({ ...answers, answers: new Map([[43, ["2"]]]) }, { id: "s1", version: 0 })),
    );
    expect(answered.result).toBe(true);
    expect(answered.statements).toHaveLength(1);

    const offered = await sent(() =>
      store.write(
        "offering a survey",
        issueAttempt(
          store.recordingSettings,
          { sessionId: "s1", version: 1, position: 0, link: "https://survey.example.com/tok-1" },
          { token: "tok-1", surveyId: 7, uid: "u1", cpi: 1.5, at: t0 },
          () => undefined,
        ),
      ),
    );
    expect(offered.result.kind).toBe("issued");
    expect(offered.statements).toHaveLength(5);
    expect([offered.statements[0], offered.statements.at(-1)]).toEqual(["BEGIN", "COMMIT"]);

    const returned = await sent(() => store.write("returning", takeReturn("tok-1", "terminate", t0)));
    expect(returned.result.kind).toBe("attempt");
    expect(returned.statements).toHaveLength(1);

    const ended = await sent(() => store.write("ending", finishSession("s1", 3, "no-survey")));
    expect(ended.result).toBe(true);
    expect(ended.statements).toHaveLength(1);
  });

  it("keeps a match's answers in six round trips however many questions, the counts moved by the difference", async (context) => {
    if (!postgres()) context.skip();
    const keep = (answers: [number, string[]][]) =>
      sent(() =>
        store.write(
          "keeping a respondent's answers",
          storeAnswers({ uid: "m1", languageId: 3, answers: new Map(answers), source: "api", at: t0.toISOString() }),
        ),
      );
    const many = Array.from({ length: 12 }, (_, index): [number, string[]] => [100 + index, ["1", "2"]]);
    const first = await keep(many);
    expect(first.result).toBe(true);
    // BEGIN, the profile's lock, the earlier answers, the answers, the counts, COMMIT: not a read and writes per question.
    expect(first.statements).toHaveLength(6);
    expect([first.statements[0], first.statements.at(-1)]).toEqual(["BEGIN", "COMMIT"]);
    const changed = await keep([[100, ["3"]]]);
    expect(changed.statements).toHaveLength(6);
    // answerCounts lists answers counted more than zero times: the replaced ones are gone.
    const counts = await store.read(answerCounts(3));
    expect(Object.fromEntries(counts.get(100) ?? [])).toEqual({ "3": 1 });
    expect(Object.fromEntries(counts.get(101) ?? [])).toEqual({ "1": 1, "2": 1 });
    expect((await store.read(readProfile("m1"))).find((answer) => answer.qualificationId === 100)?.answers).toEqual([
      "3",
    ]);
  });

  it("offers a survey in one transaction of five, and takes the entry back when the session moved meanwhile", async (context) => {
    if (!postgres()) context.skip();
    await store.write(
      "starting",
      startSession(
        { id: "s9", body: { uid: "u9", languageId: 3 }, answers: new Map(), now: t0, ttlSeconds: 3600 },
        undefined,
        undefined,
      ),
    );
    const offer = (token: string, surveyId: number, version: number) =>
      sent(() =>
        store.write(
          "offering a survey",
          issueAttempt(
            store.recordingSettings,
            { sessionId: "s9", version, position: 0, link: `https://survey.example.com/${token}` },
            { token, surveyId, uid: "u9", cpi: 1.5, at: t0 },
            () => undefined,
          ),
        ),
      );
    // Decided on version 1, but the session is at 0: nothing is recorded, the entry neither.
    const stale = await offer("tok-9a", 8, 1);
    expect(stale.result.kind).toBe("stale");
    expect(stale.statements.at(-1)).toBe("ROLLBACK");
    const before = await store.read(readSessionWithRespondent("s9", t0));
    expect(before?.session).toMatchObject({ version: 0, attempts: [] });
    expect(before?.respondent.history).toEqual({ entries: [], last24h: { entries: 0, completes: 0 } });

    const issued = await offer("tok-9b", 9, 0);
    expect(issued.result.kind).toBe("issued");
    expect(issued.statements).toHaveLength(5);
    const after = await store.read(readSessionWithRespondent("s9", t0));
    expect(after?.session).toMatchObject({ version: 1, attempts: [{ token: "tok-9b", surveyId: 9, position: 0 }] });
    expect(after?.respondent.history.entries.map((entry) => entry.surveyId)).toEqual([9]);
  });

  /** A quality gate with the default rules (`concurrent` and `bot` on) and `rules` over them. */
  const gateWith = (rules: Partial<GateRules> = {}) =>
    new QualityGate({
      rules: {
        bots: true,
        maxStartsPerIpPerHour: undefined,
        maxStartsPerUidPerDay: undefined,
        concurrent: true,
        deviceWindowDays: 30,
        geo: false,
        respondentMaxRisk: undefined,
        ...rules,
      },
      countries: geoLite2Countries(),
      languageCountry: () => Promise.resolve(undefined),
      registry: new Registry(),
    });
  const starting = (id: string, uid: string, ip?: string) => ({
    id,
    body: { uid, languageId: 3, ...(ip === undefined ? {} : { ip }) },
    answers: new Map<number, string[]>(),
    now: t0,
    ttlSeconds: 3600,
  });

  it("starts under the quality gate's default rules in four round trips: the locks, then the insert re-checks concurrent", async (context) => {
    if (!postgres()) context.skip();
    const gate = gateWith();
    const admitted = await sent(() => store.write("starting", startSession(starting("g1", "gu1"), gate, undefined)));
    expect(admitted.result).toEqual({
      respondent: { profile: [], history: { entries: [], last24h: { entries: 0, completes: 0 } } },
    });
    expect(admitted.statements).toHaveLength(4);
    expect([admitted.statements[0], admitted.statements.at(-1)]).toEqual(["BEGIN", "COMMIT"]);

    // The uid's session is open: the next start is refused and stored done, counted.
    const refused = await sent(() => store.write("starting", startSession(starting("g2", "gu1"), gate, undefined)));
    expect(refused.result).toEqual({ refused: "concurrent" });
    const session = await store.read(readSessionWithRespondent("g2", t0));
    expect(session?.session).toMatchObject({ state: "done", doneReason: "excluded", gate: "concurrent" });

    // A start limit on: the gate's own reads under the locks, as before.
    const limited = await sent(() =>
      store.write(
        "starting",
        startSession(starting("g3", "gu3", "198.51.100.9"), gateWith({ maxStartsPerIpPerHour: 5 }), undefined),
      ),
    );
    expect(limited.result).toEqual({
      respondent: { profile: [], history: { entries: [], last24h: { entries: 0, completes: 0 } } },
    });
    expect(limited.statements).toHaveLength(7);
  });
});
