import {
  createSyncClient,
  isSyncAuthenticationError,
  isSyncConflictError,
  isSyncNotFoundError,
  isSyncRequestValidationError,
  SyncStatus,
  type SyncClient,
} from "@sds/sync-client";
import type { FakeSupplierApi } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { receiveOutcome } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * `@sds/sync-client` against a real sds-sync, started in-process, over HTTP: every call a
 * supplier's offerwall or back office makes (match, entry links, the outcome feed, history
 * import, reconciliation, the status), its answers parsed with the same schemas the routes
 * answer with, and sds-sync's refusals turned into the client's typed errors.
 */

const TOKEN = "sync-client-test-token";
const SURVEY = 9701;
const OTHER = 9702;

/** The first `count` changes of the feed, through the client's follow. */
async function takeChanges(sync: SyncClient, count: number) {
  const changes = [];
  for await (const change of sync.changes.follow({ after: 0, wait: 1 })) {
    changes.push(change);
    if (changes.length === count) break;
  }
  return changes;
}

describe("@sds/sync-client against a running sds-sync", () => {
  let api: FakeSupplierApi;
  let harness: ServiceHarness;
  let sync: SyncClient;

  beforeAll(async () => {
    api = loopFake([loopSurvey(SURVEY, { Cpi: "4.00" }), loopSurvey(OTHER, { Cpi: "2.00" })]);
    harness = await startServiceHarness({ api, config: { apiToken: TOKEN, maxClosureShare: 1 } });
    sync = createSyncClient({ baseUrl: harness.service.url, token: TOKEN, env: {}, retry: false });
    await waitFor(async () => (await sync.match({ answers: {} })).eligible === 2, 20_000);
  });
  afterAll(async () => {
    await harness.close();
    await api.close();
  });

  it("matches, issues an entry link (created, then the same link for the same token) and refuses another survey's token", async () => {
    const matched = await sync.match({ answers: {}, explain: SURVEY });
    expect(matched.surveys.map((survey) => survey["SurveyId"])).toEqual([SURVEY, OTHER]);
    expect(matched.explanation).toEqual({ surveyId: SURVEY, eligible: true, reasons: [] });

    const first = await sync.entryLinks.create({ surveyId: SURVEY, token: "client-1", uid: "r-1" });
    expect(first).toMatchObject({ surveyId: SURVEY, token: "client-1", uid: "r-1", created: true });
    expect(first.link).toContain(`/s/${SURVEY}`);
    const again = await sync.entryLinks.create({ surveyId: SURVEY, token: "client-1", uid: "r-1" });
    expect(again).toEqual({ ...first, created: false });

    const conflict = await sync.entryLinks
      .create({ surveyId: OTHER, token: "client-1" })
      .catch((error: unknown) => error);
    expect(isSyncConflictError(conflict)).toBe(true);
    expect(conflict).toMatchObject({ status: 409, code: "token_in_use", operation: "issueEntryLink" });
    const missing = await sync.entryLinks
      .create({ surveyId: 999_999, token: "client-2" })
      .catch((error: unknown) => error);
    expect(isSyncNotFoundError(missing)).toBe(true);
  });

  it("refuses a token sds-sync would refuse before sending it, with the same sentence", async () => {
    const before = (await sync.outcomes.list({ after: 0, limit: 1000 })).outcomes.length;
    const refused = await sync.entryLinks
      .create({ surveyId: SURVEY, token: "bad\u0000token" })
      .catch((error: unknown) => error);
    expect(isSyncRequestValidationError(refused)).toBe(true);
    expect(refused).toMatchObject({
      attempts: 0,
      issues: [{ path: ["token"], message: "must not hold control characters (such as NUL)" }],
    });
    // sds-sync says the same of the same body, sent by hand.
    const direct = await harness.request("/v1/entry-links", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ surveyId: SURVEY, token: "bad\u0000token" }),
    });
    expect(direct.status).toBe(400);
    expect(await direct.text()).toContain("token: must not hold control characters (such as NUL)");
    expect((await sync.outcomes.list({ after: 0, limit: 1000 })).outcomes.length).toBe(before);
  });

  it("follows the outcome feed, and reconciles with a dry run first", async () => {
    await sync.entryLinks.create({ surveyId: OTHER, token: "client-3", uid: "r-3" });
    await receiveOutcome(harness, "complete", "client-3");
    const followed = [];
    for await (const outcome of sync.outcomes.follow({ after: 0, wait: 1 })) {
      followed.push(outcome);
      if (outcome.token === "client-3") break;
    }
    expect(followed.at(-1)).toMatchObject({ token: "client-3", outcome: "complete", source: "s2s", surveyId: OTHER });

    const preview = await sync.outcomes.reconcile({
      outcomes: [{ token: "client-3", outcome: "terminate", reason: "quality" }],
      dryRun: true,
    });
    expect(preview).toMatchObject({ dryRun: true, changed: 1, results: [{ status: "changed", sequence: null }] });
    const applied = await sync.outcomes.reconcile({
      outcomes: [
        { token: "client-3", outcome: "terminate", reason: "quality" },
        { token: "nobody-issued-this", outcome: "complete" },
      ],
    });
    expect(applied).toMatchObject({ dryRun: false, changed: 1, unknown: 1 });
    const last = followed.at(-1)?.sequence ?? 0;
    const page = await sync.outcomes.list({ after: last });
    expect(page.outcomes).toMatchObject([
      { token: "client-3", outcome: "terminate", previousOutcome: "complete", source: "reconcile", reason: "quality" },
    ]);
  });

  it("imports history, idempotently, and keeps the respondent out of the survey they entered", async () => {
    const entries = [{ uid: "r-history", surveyId: SURVEY, enteredAt: "2026-01-05T10:00:00Z" }];
    expect(await sync.respondents.importHistory({ entries })).toEqual({ imported: 1, skipped: 0 });
    expect(await sync.respondents.importHistory({ entries })).toEqual({ imported: 0, skipped: 1 });
    const matched = await sync.match({ answers: {}, uid: "r-history", explain: SURVEY });
    expect(matched.surveys.map((survey) => survey["SurveyId"])).toEqual([OTHER]);
    expect(matched.explanation?.reasons.map((reason) => reason.kind)).toEqual(["already-entered"]);
  });

  it("reads the status, every field of it named by the schema", async () => {
    const status = await sync.status();
    expect(status.loop.totals.lifetime.entries).toBeGreaterThanOrEqual(2);
    expect(status.store.kind).toBe("sqlite");
    // The schema drops what it does not name: a parse equal to the raw answer names every field.
    const raw: unknown = await (
      await harness.request("/v1/sync/status", { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json();
    expect(SyncStatus.parse(raw)).toEqual(raw);
  });

  it("lists the inventory and the change feed, and runs the probes", async () => {
    const page = await sync.surveys.list({ limit: 1, status: "all" });
    expect(page.surveys).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();
    expect((await sync.surveys.get(SURVEY)).id).toBe(SURVEY);
    expect((await sync.changes.list({ after: 0 })).changes.length).toBeGreaterThanOrEqual(2);
    expect(await sync.health()).toEqual({ status: "ok" });
    expect((await sync.readiness()).ready).toBe(true);
    expect((await sync.surveys.collections()).collections.length).toBeGreaterThan(0);
    const [first] = await takeChanges(sync, 1);
    expect(first?.sequence).toBe(1);
  });

  it("runs a cycle, asks for one without waiting, and confirms held closures", async () => {
    const run = await sync.cycles.run();
    expect(run.run.status).toBe("succeeded");
    expect(await sync.cycles.start()).toEqual({ accepted: true });
    expect(await sync.cycles.confirmClosures()).toMatchObject({ confirmed: 0 });
  });

  it("says a wrong token is an authentication error, and never shows the token", async () => {
    const wrong = createSyncClient({ baseUrl: harness.service.url, token: "not-the-token", env: {}, retry: false });
    const error = await wrong.status().catch((caught: unknown) => caught);
    expect(isSyncAuthenticationError(error)).toBe(true);
    expect(JSON.stringify(error)).not.toContain("not-the-token");
    expect(String(error)).not.toContain("not-the-token");
  });
});
