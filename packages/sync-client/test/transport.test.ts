import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createSyncClient,
  isSyncAbortedError,
  isSyncConfigurationError,
  isSyncConnectionError,
  isSyncGoneError,
  isSyncRateLimitError,
  isSyncResponseValidationError,
  isSyncServerError,
  isSyncTimeoutError,
  SyncConflictError,
  type SyncClientOptions,
} from "../src/index.ts";
import { startScriptedServer, type ScriptedAnswer, type ScriptedServer } from "./scripted-server.ts";

/*
 * The client's transport against a tiny node:http server that answers what each test scripts:
 * which calls are retried and which never are, Retry-After, timeouts and deadlines, aborts, a
 * dropped connection, sds-sync's error bodies, and that the token never shows in an error.
 */

const TOKEN = "secret-sync-token-123";
const page = { outcomes: [], next: 0, hasMore: false };
const reconciled = { dryRun: false, changed: 0, unchanged: 0, unknown: 1, results: [] };
const errorBody = (code: string, message: string) => ({ error: { code, message } });
const quickRetry = { limit: 2, initialDelay: 1, maxDelay: 5, jitter: false } as const;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(answers: readonly ScriptedAnswer[], options: SyncClientOptions = {}) {
  server = await startScriptedServer(answers);
  return createSyncClient({ baseUrl: server.url, token: TOKEN, env: {}, retry: quickRetry, ...options });
}

describe("the sds-sync client's transport", () => {
  it("retries a 503 of a call safe to repeat, then answers", async () => {
    const sync = await clientFor([
      { status: 503, body: errorBody("unavailable", "store down") },
      { status: 200, body: page },
    ]);
    expect(await sync.outcomes.list({ after: 0 })).toEqual(page);
    expect(server?.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      "GET /v1/outcomes?after=0",
      "GET /v1/outcomes?after=0",
    ]);
    expect(server?.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("retries an entry link with the same body: a repeat of the token answers the same link", async () => {
    const link = {
      link: "https://survey.example/s/7?rid=t-1",
      surveyId: 7,
      token: "t-1",
      uid: "",
      issuedAt: "2026-01-05T10:00:00.000Z",
    };
    const sync = await clientFor([{ drop: true }, { status: 201, body: link }]);
    expect(await sync.entryLinks.create({ surveyId: 7, token: "t-1" })).toEqual({ ...link, created: true });
    expect(server?.received.map((request) => request.body)).toEqual([
      JSON.stringify({ surveyId: 7, token: "t-1", uid: "" }),
      JSON.stringify({ surveyId: 7, token: "t-1", uid: "" }),
    ]);
    expect(server?.received[1]?.headers["content-type"]).toBe("application/json");
  });

  it("never retries a reconciliation that records, but retries its dry run", async () => {
    const sync = await clientFor([
      { status: 503, body: errorBody("unavailable", "store down") },
      { status: 200, body: reconciled },
    ]);
    const body = { outcomes: [{ token: "t-1", outcome: "terminate" as const }] };
    const error = await sync.outcomes.reconcile(body).catch((caught: unknown) => caught);
    expect(isSyncServerError(error)).toBe(true);
    expect(error).toMatchObject({ status: 503, code: "unavailable", attempts: 1 });
    expect(server?.received).toHaveLength(1);
    expect(await sync.outcomes.reconcile({ ...body, dryRun: true })).toEqual(reconciled);
    expect(server?.received).toHaveLength(2);
  });

  it("retries a reconciliation sent with an idempotency key, with the same key on every attempt", async () => {
    const sync = await clientFor([
      { status: 503, body: errorBody("store_unavailable", "store down") },
      { drop: true },
      { status: 200, body: { ...reconciled, applied: true, replayed: true } },
    ]);
    const body = { outcomes: [{ token: "t-1", outcome: "terminate" as const, reason: "qc" }] };
    expect(await sync.outcomes.reconcile(body, { idempotencyKey: "report-7:batch-1" })).toEqual({
      ...reconciled,
      applied: true,
      replayed: true,
    });
    expect(server?.received).toHaveLength(3);
    expect(server?.received.map((request) => request.headers["idempotency-key"])).toEqual([
      "report-7:batch-1",
      "report-7:batch-1",
      "report-7:batch-1",
    ]);
  });

  it("never retries starting or answering a session, but retries reading and ending one", async () => {
    const session = {
      id: "s-1",
      uid: "r-1",
      languageId: 3,
      state: "open",
      questionsAsked: 0,
      attempts: [],
      next: { kind: "done", reason: "no-survey" },
    };
    const unavailable = { status: 503, body: errorBody("unavailable", "store down") } as const;
    const sync = await clientFor([unavailable, unavailable, { status: 200, body: session }]);
    const started = await sync.sessions.create({ uid: "r-1", languageId: 3 }).catch((caught: unknown) => caught);
    expect(started).toMatchObject({ status: 503, attempts: 1, operation: "startSession" });
    const answered = await sync.sessions.answer("s-1", { "43": ["2"] }).catch((caught: unknown) => caught);
    expect(answered).toMatchObject({ status: 503, attempts: 1, operation: "answerSession" });
    expect(server?.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /v1/sessions",
      "POST /v1/sessions/s-1/answers",
    ]);
    await server?.close();

    const again = await clientFor([unavailable, { status: 200, body: session }]);
    expect(await again.sessions.get("s 1", { explain: true })).toEqual(session);
    expect(server?.received.map((request) => request.url)).toEqual([
      "/v1/sessions/s%201?explain=1",
      "/v1/sessions/s%201?explain=1",
    ]);
    await server?.close();
    const ending = await clientFor([{ drop: true }, { status: 200, body: session }]);
    expect(await ending.sessions.end("s-1")).toEqual(session);
    await server?.close();
    const erasing = await clientFor([unavailable, { status: 200, body: { uid: "r/1", erased: 2 } }]);
    expect(await erasing.respondents.eraseProfile("r/1")).toEqual({ uid: "r/1", erased: 2 });
    expect(server?.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      "DELETE /v1/respondents/r%2F1/profile",
      "DELETE /v1/respondents/r%2F1/profile",
    ]);
  });

  it("reads where each events sink stands and resumes a webhook by its name, retrying both", async () => {
    const eventsStatus = {
      leader: true,
      sinks: [
        {
          sink: "webhook:back office",
          feed: "outcomes",
          position: 41,
          latest: 44,
          lagRecords: 3,
          lagSeconds: 12.5,
          oldestPendingAt: "2026-01-05T10:00:00.000Z",
          failingSince: "2026-01-05T10:00:01.000Z",
          lastError: "503 from the endpoint",
          updatedAt: "2026-01-05T10:00:02.000Z",
        },
      ],
    };
    const sync = await clientFor([
      { status: 503, body: errorBody("unavailable", "store down") },
      { status: 200, body: eventsStatus },
      { drop: true },
      { status: 202, body: { webhook: "back office", resumed: true } },
      { status: 409, body: errorBody("not_leader", "only the leader delivers events: ask the replica that leads") },
      { status: 200, body: { leader: true } },
    ]);
    expect(await sync.events.status()).toEqual(eventsStatus);
    expect(await sync.events.resumeWebhook("back office")).toEqual({ webhook: "back office", resumed: true });
    const follower = await sync.events.resumeWebhook("back office").catch((caught: unknown) => caught);
    expect(follower).toBeInstanceOf(SyncConflictError);
    expect(follower).toMatchObject({ code: "not_leader", operation: "resumeWebhook", attempts: 1 });
    const malformed = await sync.events.status().catch((caught: unknown) => caught);
    expect(isSyncResponseValidationError(malformed)).toBe(true);
    expect(server?.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      "GET /v1/events",
      "GET /v1/events",
      "POST /v1/webhooks/back%20office/resume",
      "POST /v1/webhooks/back%20office/resume",
      "POST /v1/webhooks/back%20office/resume",
      "GET /v1/events",
    ]);
    expect(server?.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("obeys a Retry-After within maxRetryAfter, and throws one beyond it at once", async () => {
    const soon = await clientFor([
      { status: 429, headers: { "retry-after": "0" } },
      { status: 200, body: page },
    ]);
    expect(await soon.outcomes.list()).toEqual(page);
    await server?.close();
    // sds-sync's 60 s (entry links that cannot be signed yet) is beyond the default 10 s: the caller decides.
    const late = await clientFor([
      { status: 503, headers: { "retry-after": "60" }, body: errorBody("entry_links_unsignable", "later") },
    ]);
    const error = await late.entryLinks.create({ surveyId: 7, token: "t-1" }).catch((caught: unknown) => caught);
    expect(isSyncServerError(error)).toBe(true);
    expect(error).toMatchObject({ retryAfter: 60_000, attempts: 1, code: "entry_links_unsignable" });
    expect(server?.received).toHaveLength(1);
    await server?.close();
    const spaced = await clientFor([
      { status: 429, headers: { "retry-after": "30" }, body: errorBody("too_many_requests", "runs are spaced") },
    ]);
    const refused = await spaced.status().catch((caught: unknown) => caught);
    expect(isSyncRateLimitError(refused)).toBe(true);
    expect(refused).toMatchObject({ retryAfter: 30_000, attempts: 1 });
  });

  it("gives up after the retry limit with the last answer's error", async () => {
    const sync = await clientFor([{ status: 502, body: "Bad Gateway" }]);
    const error = await sync.status().catch((caught: unknown) => caught);
    expect(isSyncServerError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 502,
      attempts: 3,
      operation: "syncStatus",
      method: "GET",
      path: "/v1/sync/status",
    });
    expect(server?.received).toHaveLength(3);
  });

  it("tells its hooks of every attempt, the retry between them and the answers, with the token redacted", async () => {
    const events: string[] = [];
    let headers: Readonly<Record<string, string>> = {};
    const sync = await clientFor(
      [
        { status: 503, body: errorBody("unavailable", "store down") },
        { status: 200, body: page },
      ],
      {
        hooks: {
          onRequest: (event) => {
            events.push(`request ${event.attempt} ${event.operation}`);
            headers = event.headers;
          },
          onResponse: (event) => {
            events.push(`response ${event.attempt} ${event.status}`);
            throw new Error("a broken logger fails nothing");
          },
          onRetry: (event) => events.push(`retry ${event.attempt} ${event.error.name}`),
        },
      },
    );
    await sync.outcomes.list();
    expect(events).toEqual([
      "request 1 listOutcomes",
      "response 1 503",
      "retry 1 SyncServerError",
      "request 2 listOutcomes",
      "response 2 200",
    ]);
    expect(headers["authorization"]).toBe("[REDACTED]");
    expect(JSON.stringify(headers)).not.toContain(TOKEN);
  });

  it("maps sds-sync's error body to the class of its status, with its code and sentence", async () => {
    const sync = await clientFor([
      { status: 409, body: errorBody("respondent_excluded", "the respondent may not enter survey 7") },
      { status: 410, body: errorBody("outcomes_expired", "go on with after=40") },
    ]);
    const conflict = await sync.entryLinks.create({ surveyId: 7, token: "t-1" }).catch((caught: unknown) => caught);
    expect(conflict).toBeInstanceOf(SyncConflictError);
    expect(conflict).toMatchObject({
      code: "respondent_excluded",
      serviceMessage: "the respondent may not enter survey 7",
    });
    expect((conflict as Error).message).toBe(
      "POST /v1/entry-links failed with HTTP 409 (respondent_excluded): the respondent may not enter survey 7",
    );
    const gone = await sync.outcomes.list({ after: 3 }).catch((caught: unknown) => caught);
    expect(isSyncGoneError(gone)).toBe(true);
  });

  it("times out an attempt that gets no answer, retries it, and says which limit ran out", async () => {
    const sync = await clientFor([{ hang: true }], { timeout: 50, retry: { ...quickRetry, limit: 1 } });
    const error = await sync.status().catch((caught: unknown) => caught);
    expect(isSyncTimeoutError(error)).toBe(true);
    // Two attempts were made; whether the second reached the server within its 50 ms is the machine's business.
    expect(error).toMatchObject({ phase: "attempt", timeout: 50, attempts: 2 });
  });

  it("stops at the call's deadline, retries included", async () => {
    const sync = await clientFor([{ hang: true }], { timeout: 5_000, deadline: 100 });
    const error = await sync.status().catch((caught: unknown) => caught);
    expect(isSyncTimeoutError(error)).toBe(true);
    expect(error).toMatchObject({ phase: "deadline", timeout: 100 });
  });

  it("gives a long-poll its wait on top of the attempt timeout", async () => {
    server = await startScriptedServer([{ status: 200, body: page }]);
    // The answer comes 150 ms after the call, past the 100 ms attempt timeout, on faked timers:
    // the test moves time instead of waiting it out.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let called: () => void = () => undefined;
      const fetchCalled = new Promise<void>((resolve) => {
        called = resolve;
      });
      const slow: typeof fetch = async (input, init) => {
        called();
        await new Promise((resolve) => setTimeout(resolve, 150));
        return fetch(input, init);
      };
      const sync = createSyncClient({ baseUrl: server.url, env: {}, retry: false, timeout: 100, fetch: slow });
      const listed = sync.outcomes.list({ wait: 5 });
      await fetchCalled;
      await vi.advanceTimersByTimeAsync(150);
      expect(await listed).toEqual(page);
    } finally {
      vi.useRealTimers();
    }
    expect(server.received[0]?.url).toBe("/v1/outcomes?wait=5");
  });

  it("ends a call aborted by its signal with SyncAbortedError and retries nothing", async () => {
    const sync = await clientFor([{ hang: true }]);
    const controller = new AbortController();
    const pending = sync.status({ signal: controller.signal }).catch((caught: unknown) => caught);
    await expect.poll(() => server?.received.length).toBe(1);
    controller.abort(new Error("the user left"));
    const error = await pending;
    expect(isSyncAbortedError(error)).toBe(true);
    expect(server?.received).toHaveLength(1);
  });

  it("reports a dropped connection as a connection error after retrying it", async () => {
    const sync = await clientFor([{ drop: true }]);
    const error = await sync.health().catch((caught: unknown) => caught);
    expect(isSyncConnectionError(error)).toBe(true);
    expect(error).toMatchObject({ attempts: 3 });
  });

  it("refuses an answer that is not sds-sync's as a response validation error", async () => {
    const sync = await clientFor([
      { status: 200, body: "<html>a proxy's page</html>" },
      { status: 200, body: { surveys: "no" } },
    ]);
    const notJson = await sync.health().catch((caught: unknown) => caught);
    expect(isSyncResponseValidationError(notJson)).toBe(true);
    expect(notJson).toMatchObject({ status: 200, issues: [{ code: "invalid_json" }] });
    const wrongShape = await sync.match({ answers: {} }).catch((caught: unknown) => caught);
    expect(isSyncResponseValidationError(wrongShape)).toBe(true);
  });

  it("never shows the token: not in messages, JSON, or an echoed error body", async () => {
    const sync = await clientFor([{ status: 401, body: errorBody("unauthorized", `bad token ${TOKEN}`) }]);
    const error = await sync.status().catch((caught: unknown) => caught);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(String(error)).not.toContain(TOKEN);
    expect((error as Error).stack).not.toContain(TOKEN);
  });

  it("returns a failed cycle (502) and a replica not ready (503) as answers, not errors", async () => {
    const failedRun = {
      run: {
        id: 7,
        status: "failed",
        startedAt: "2026-01-05T10:00:00.000Z",
        finishedAt: "2026-01-05T10:00:01.000Z",
        durationMs: 1000,
        counts: {},
        error: "upstream 500",
        firstSequence: null,
        lastSequence: null,
      },
    };
    const sync = await clientFor([
      { status: 502, body: failedRun },
      { status: 503, body: { ready: false, reason: "no successful sync cycle yet" } },
    ]);
    expect(await sync.cycles.run()).toEqual(failedRun);
    expect(await sync.readiness()).toEqual({ ready: false, reason: "no successful sync cycle yet" });
    expect(server?.received).toHaveLength(2);
  });

  it("keeps the token out of what printing the client shows", async () => {
    const sync = await clientFor([{ status: 200, body: {} }]);
    expect(inspect(sync, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(sync)).not.toContain(TOKEN);
  });

  it("reads SDS_SYNC_URL and SYNC_API_TOKEN from the environment, and refuses a bad base URL", async () => {
    server = await startScriptedServer([{ status: 200, body: { status: "ok" } }]);
    const sync = createSyncClient({ env: { SDS_SYNC_URL: server.url, SYNC_API_TOKEN: TOKEN } });
    expect(await sync.health()).toEqual({ status: "ok" });
    expect(server.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    for (const baseUrl of ["", "ftp://sync.example", "http://user:pass@sync.example", "http://sync.example/a/../b"]) {
      let error: unknown;
      try {
        createSyncClient({ baseUrl, env: {} });
      } catch (caught) {
        error = caught;
      }
      expect(isSyncConfigurationError(error), baseUrl).toBe(true);
      expect(String(error)).not.toContain("pass@");
    }
  });
});
