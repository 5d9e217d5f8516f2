import { request as httpRequest } from "node:http";
import { type FakeSupplierApi } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { execute } from "../src/database/program.ts";
import { command } from "../src/database/statement.ts";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { postJson, readLoopFigures, readOutcomeFeed } from "./loop-traffic.ts";
import { storeCases } from "./store-cases.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Reconciliation batches that never half-apply and never double (issue 32): a reason is checked
 * like other loop text; a line the store refuses answers 422 with none of its batch recorded
 * (never a 503 that asks for a retry that fails the same way); a batch is one transaction whose
 * tokens stay locked for the whole request, so two batches over the same tokens on two replicas
 * apply one after the other; and an `Idempotency-Key` makes a repeated batch answer the first
 * answer instead of applying twice. On both stores; on PostgreSQL across two replicas.
 */

/** POSTs a reconciliation with two `Idempotency-Key` lines (fetch would join them into one). */
function sendWithHeaderTwice(
  harness: ServiceHarness,
  body: unknown,
  keys: readonly string[],
): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${harness.service.url}/v1/outcomes/reconcile`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          "idempotency-key": [...keys],
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, body: text });
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/** A statement of the test's own (a trigger), run through the store like any write. */
const ddl = (text: string) => execute(command<[]>(text));

const SURVEY = 9302;
const CPI = 2.5;

const { stores, usable } = storeCases("sds_sync_reconcile_b");

interface ReconcileLine {
  token: string;
  status: string;
  outcome: string;
  previousOutcome: string | null;
  sequence: number | null;
}
interface ReconcileAnswer {
  dryRun: boolean;
  applied?: boolean;
  replayed?: boolean;
  changed: number;
  unchanged: number;
  unknown: number;
  results: ReconcileLine[];
}
interface ErrorAnswer {
  error: { code: string; message: string };
}

/** Two lines per token, as the marketplace sent them: every token rejected in a quality review, then every rejection appealed. */
function qcThenAppeal(tokens: readonly string[]) {
  return [
    ...tokens.map((token) => ({ token, outcome: "terminate", reason: "qc" })),
    ...tokens.map((token) => ({ token, outcome: "complete", reason: "appeal" })),
  ];
}

describe.each(stores)("reconciliation batches over HTTP on $name", (store) => {
  const harnesses: ServiceHarness[] = [];
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
    await api?.close();
    api = undefined;
  });

  /**
   * sds-sync with `count` completed entries (`tok-0` …), and a second replica on the same
   * PostgreSQL schema (on SQLite, one process per file: the same replica twice).
   */
  async function startWithCompletes(
    count: number,
    pruneClock?: () => number,
    config: Partial<SyncConfig> = {},
  ): Promise<{ first: ServiceHarness; second: ServiceHarness; tokens: string[] }> {
    const fake = loopFake([loopSurvey(SURVEY, { Cpi: CPI.toFixed(2) })]);
    api = fake;
    const database = store.database();
    const start = () =>
      startServiceHarness({
        api: fake,
        config: { maxClosureShare: 1, ...config },
        ...(database ? { database } : {}),
        ...(pruneClock ? { pruneClock, pruneEveryMs: 3_600_000 } : {}),
      });
    const first = await start();
    harnesses.push(first);
    const tokens = Array.from({ length: count }, (_, index) => `tok-${index}`);
    await waitFor(
      async () =>
        (await postJson(first, "/v1/entry-links", { surveyId: SURVEY, token: "tok-0", uid: "r0" })).status === 201,
      20_000,
    );
    for (const [index, token] of tokens.entries()) {
      if (index > 0)
        expect((await postJson(first, "/v1/entry-links", { surveyId: SURVEY, token, uid: `r${index}` })).status).toBe(
          201,
        );
      expect((await fetch(`${first.service.outcomesUrl}/v1/outcomes/complete?vq_token=${token}`)).status).toBe(200);
    }
    let second = first;
    if (database?.kind === "postgres") {
      second = await start();
      harnesses.push(second);
    }
    return { first, second, tokens };
  }

  const reconcile = (harness: ServiceHarness, body: unknown, idempotencyKey?: string) =>
    harness.request("/v1/outcomes/reconcile", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
      },
      body: JSON.stringify(body),
    });
  const lifetime = async (harness: ServiceHarness) => (await readLoopFigures(harness)).totals.lifetime;

  it("refuses a reason holding control characters, or too long, with a 400 naming the line and the field, recording nothing", async (context) => {
    if (!usable(store)) context.skip();
    const { first, tokens } = await startWithCompletes(2);
    const before = await readOutcomeFeed(first);
    for (const reason of ["\u001b[2J cleared", "qc\u0008\u0008ok", "line\nbreak", "a\u0000b", "r".repeat(501)]) {
      const response = await postJson(first, "/v1/outcomes/reconcile", {
        outcomes: [
          { token: tokens[0], outcome: "terminate", reason: "fine" },
          { token: tokens[1], outcome: "terminate", reason },
        ],
      });
      expect(response.status, JSON.stringify(reason).slice(0, 40)).toBe(400);
      const { error } = (await response.json()) as ErrorAnswer;
      expect(error.code).toBe("bad_request");
      expect(error.message).toMatch(/^outcomes\.1\.reason: /);
    }
    expect(await readOutcomeFeed(first)).toEqual(before);
  });

  it("answers a line the store refuses with 422, never 503, and records no line of its batch, dry run or not", async (context) => {
    if (!usable(store)) context.skip();
    const { first, tokens } = await startWithCompletes(2);
    // A rule of the database the data breaks (a constraint sds-sync does not check itself).
    const loopStore = first.service.loop.store;
    if (loopStore.kind === "postgres") {
      await loopStore.write(
        "test: a check",
        ddl(`CREATE FUNCTION refuse_reason() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  IF NEW.reason = 'refused-by-the-store' THEN RAISE EXCEPTION 'reason refused' USING ERRCODE = 'check_violation'; END IF;
  RETURN NEW; END $$`),
      );
      await loopStore.write(
        "test: a check",
        ddl(
          "CREATE TRIGGER refuse_reason BEFORE INSERT ON loop_outcomes FOR EACH ROW EXECUTE FUNCTION refuse_reason()",
        ),
      );
    } else {
      await loopStore.write(
        "test: a check",
        ddl(
          "CREATE TRIGGER refuse_reason BEFORE INSERT ON loop_outcomes WHEN NEW.reason = 'refused-by-the-store' BEGIN SELECT RAISE(ABORT, 'reason refused'); END",
        ),
      );
    }
    const before = { feed: await readOutcomeFeed(first), totals: await lifetime(first) };
    const lines = [
      { token: tokens[0], outcome: "terminate", reason: "qc" },
      { token: tokens[1], outcome: "terminate", reason: "refused-by-the-store" },
    ];
    for (const body of [{ outcomes: lines }, { outcomes: lines, dryRun: true }]) {
      const response = await postJson(first, "/v1/outcomes/reconcile", body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.headers.get("retry-after")).toBeNull();
      const { error } = (await response.json()) as ErrorAnswer;
      expect(error.code).toBe("store_refused_data");
      expect(error.message).toMatch(/nothing .*recorded/);
    }
    expect({ feed: await readOutcomeFeed(first), totals: await lifetime(first) }).toEqual(before);
    // The batch without the refused line goes through whole.
    const answer = (await (
      await postJson(first, "/v1/outcomes/reconcile", { outcomes: [lines[0]] })
    ).json()) as ReconcileAnswer;
    expect(answer).toMatchObject({ applied: true, changed: 1 });
  });

  it("applies the same batch sent with one Idempotency-Key once: a repeat answers the first answer, another body under the key is refused", async (context) => {
    if (!usable(store)) context.skip();
    let now = Date.now();
    const { first, second, tokens } = await startWithCompletes(2, () => now, { idempotencyRetentionSeconds: 3600 });
    const body = { outcomes: qcThenAppeal(tokens) };
    const key = "batch-2026-12-06-a";
    const answer = async (response: Response) => {
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as ReconcileAnswer;
    };
    const firstAnswer = await answer(await reconcile(first, body, key));
    expect(firstAnswer).toMatchObject({ applied: true, changed: 4, replayed: false });
    const repeat = await answer(await reconcile(second, body, key));
    expect(repeat).toEqual({ ...firstAnswer, replayed: true });
    expect((await readOutcomeFeed(first)).length).toBe(2 + 4);
    expect(await lifetime(first)).toMatchObject({ completes: 2, reversals: 2, earnings: 2 * CPI });

    const reused = await reconcile(first, { outcomes: qcThenAppeal(tokens.slice(0, 1)) }, key);
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as ErrorAnswer).error.code).toBe("idempotency_key_reused");
    for (const bad of ["", "x".repeat(201), "tab\there"]) {
      const response = await reconcile(first, body, bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(((await response.json()) as ErrorAnswer).error.message).toMatch(/Idempotency-Key/);
    }
    // Two lines of the header: refused, not read as one key "a, b".
    const twice = await sendWithHeaderTwice(first, body, ["batch-a", "batch-b"]);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatch(/Idempotency-Key header must be sent once/);
    expect((await readOutcomeFeed(first)).length).toBe(2 + 4);

    // Keys are kept SYNC_IDEMPOTENCY_RETENTION_SECONDS (an hour here), then pruned: the same key then records the batch again.
    now += 1800 * 1000;
    expect((await first.service.pruner.pruneOnce()).deleted["idempotency-keys"]).toBe(0);
    expect(await answer(await reconcile(first, body, key))).toMatchObject({ replayed: true });
    now += 3600 * 1000;
    expect((await first.service.pruner.pruneOnce()).deleted["idempotency-keys"]).toBe(1);
    expect(await answer(await reconcile(first, body, key))).toMatchObject({ replayed: false, changed: 4 });
    expect((await readOutcomeFeed(first)).length).toBe(2 + 8);
  });

  it("applies two identical batches sent at once without a key one after the other, each whole (never interleaved)", async (context) => {
    if (!usable(store)) context.skip();
    const { first, second, tokens } = await startWithCompletes(100);
    const body = { outcomes: qcThenAppeal(tokens) };
    const responses = await Promise.all([reconcile(first, body), reconcile(second, body)]);
    const answers = await Promise.all(
      responses.map(async (response) => {
        expect(response.status, await response.clone().text()).toBe(200);
        return (await response.json()) as ReconcileAnswer;
      }),
    );
    // Two requests without a key are two corrections: each applies whole, on the state the other left.
    for (const answer of answers) {
      expect(answer.changed).toBe(200);
      expect(answer.results.map((line) => line.previousOutcome)).toEqual([
        ...tokens.map(() => "complete"),
        ...tokens.map(() => "terminate"),
      ]);
    }
    const feed = (await readOutcomeFeed(first)).slice(tokens.length);
    expect(feed).toHaveLength(400);
    const sequences = answers
      .map((answer) => answer.results.map((line) => line.sequence ?? 0))
      .sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
    // Each batch's transitions hold consecutive places of the feed, in its lines' order.
    expect(sequences.flat()).toEqual(feed.map((record) => record.sequence));
    expect(feed.map((record) => record.reason)).toEqual([
      ...tokens.map(() => "qc"),
      ...tokens.map(() => "appeal"),
      ...tokens.map(() => "qc"),
      ...tokens.map(() => "appeal"),
    ]);
    expect(await lifetime(first)).toMatchObject({
      entries: 100,
      completes: 100,
      terminates: 0,
      reversals: 200,
      earnings: 100 * CPI,
    });
  });

  it("applies two batches over the same tokens in opposite orders, sent at once, one after the other without a deadlock", async (context) => {
    if (!usable(store)) context.skip();
    const { first, second, tokens } = await startWithCompletes(100);
    const responses = await Promise.all([
      reconcile(first, { outcomes: qcThenAppeal(tokens) }),
      reconcile(second, { outcomes: qcThenAppeal(tokens.toReversed()) }),
    ]);
    for (const response of responses) expect(response.status, await response.text()).toBe(200);
    const feed = (await readOutcomeFeed(first)).slice(tokens.length);
    expect(feed).toHaveLength(400);
    // Whole batches: each token's four transitions alternate qc, appeal, qc, appeal.
    expect(feed.slice(0, 200).map((record) => record.reason)).toEqual([
      ...tokens.map(() => "qc"),
      ...tokens.map(() => "appeal"),
    ]);
    expect(await lifetime(first)).toMatchObject({ completes: 100, reversals: 200, earnings: 100 * CPI });
  });

  it("applies two identical batches sent at once with the same Idempotency-Key exactly once, both answering the same", async (context) => {
    if (!usable(store)) context.skip();
    const { first, second, tokens } = await startWithCompletes(100);
    const body = { outcomes: qcThenAppeal(tokens) };
    const key = "report-2026-12-06";
    const responses = await Promise.all([reconcile(first, body, key), reconcile(second, body, key)]);
    const answers = await Promise.all(
      responses.map(async (response) => {
        expect(response.status, await response.clone().text()).toBe(200);
        return (await response.json()) as ReconcileAnswer;
      }),
    );
    expect(answers.map((answer) => answer.replayed).sort()).toEqual([false, true]);
    const [one, other] = answers.map(({ replayed: _replayed, ...answer }) => answer);
    expect(one).toEqual(other);
    expect(one?.changed).toBe(200);
    expect(await readOutcomeFeed(first)).toHaveLength(100 + 200);
    expect(await lifetime(first)).toMatchObject({ completes: 100, reversals: 100, earnings: 100 * CPI });
  });
});
