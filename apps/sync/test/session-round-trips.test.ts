import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { LoopStore } from "../src/loop/store/loop-store.ts";
import { openPostgresLoopStore } from "../src/loop/store/postgres-loop-store.ts";
import { startSession } from "../src/session/gated-writes.ts";
import {
  finishSession,
  issueAttempt,
  readSessionWithRespondent,
  storeAnswers,
  takeReturn,
} from "../src/session/session-records.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";

/*
 * The round trips of a session's store programs on PostgreSQL (every statement sent is one,
 * BEGIN and COMMIT included), counted at the driver: what a step costs besides its HTTP request
 * (docs/respondent-loop.md). `bench:session-http` counts them per step over HTTP.
 */

const available = await postgresAvailable();
const t0 = new Date("2026-03-01T10:00:00.000Z");

describe.skipIf(!available)("a session's store programs on PostgreSQL", () => {
  const schema = freshSchemaName("sds_session_trips");
  let store: LoopStore;
  beforeAll(async () => {
    store = await openPostgresLoopStore({ connectionString: testDatabaseUrl, schema, poolSize: 2 });
  });
  afterAll(async () => {
    await store.close();
    await dropSchema(schema);
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

  it("starts, reads, answers, offers, returns and ends in the round trips the docs give", async () => {
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
    expect(start.result).toEqual({ respondent: { profile: [], history: [] } });
    expect(start.statements).toHaveLength(1);

    const read = await sent(() => store.read(readSessionWithRespondent("s1", 10)));
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
    expect(offered.statements).toHaveLength(6);
    expect([offered.statements[0], offered.statements.at(-1)]).toEqual(["BEGIN", "COMMIT"]);

    const returned = await sent(() => store.write("returning", takeReturn("tok-1", "terminate", t0)));
    expect(returned.result.kind).toBe("attempt");
    expect(returned.statements).toHaveLength(1);

    const ended = await sent(() => store.write("ending", finishSession("s1", 3, "no-survey")));
    expect(ended.result).toBe(true);
    expect(ended.statements).toHaveLength(1);
  });
});
