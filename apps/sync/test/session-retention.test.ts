import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { postJson } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { storeCases } from "./store-cases.ts";

/*
 * Sessions are pruned by the shared pruner with the loop's other records: kept a TTL past their
 * expiry (a late GET still says `expired`), then deleted with their attempts. Time moves on the
 * sessions' and the pruner's clocks; nothing waits.
 */

const TTL_SECONDS = 60;
/*
 * The service starts once per suite, in its beforeAll: that runs after storeCases' own (the
 * file's), so it knows whether PostgreSQL answers and starts nothing when it does not.
 */
const { stores, usable } = storeCases("sds_session_retention");

describe.each(stores)("session retention on $name", (store) => {
  const api = loopFake([loopSurvey(8301, { Cpi: "2.00" }), loopSurvey(8302, { Cpi: "1.50" })]);
  let harness: ServiceHarness;
  /** How far the sessions' and the pruner's clocks run ahead of the wall clock. */
  const ahead = { ms: 0 };
  beforeAll(async () => {
    if (!usable(store)) return;
    const database = store.database();
    harness = await startServiceHarness({
      api,
      config: { sessionTtlSeconds: TTL_SECONDS },
      // Passes only when the test asks (pruneOnce).
      pruneEveryMs: 3_600_000,
      sessionClock: () => new Date(Date.now() + ahead.ms),
      pruneClock: () => Date.now() + ahead.ms,
      ...(database ? { database } : {}),
    });
  });
  afterAll(async () => {
    if (usable(store)) await harness.close();
    await api.close();
  });

  it("keeps an expired session a TTL past its expiry, then the pruner deletes it with the loop's records", async (context) => {
    if (!usable(store)) context.skip();
    const started = await postJson(harness, "/v1/sessions", { uid: "r-pruned", languageId: 1 });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };

    ahead.ms = 2 * TTL_SECONDS * 1000 - 5000;
    const early = await harness.service.pruner.pruneOnce();
    expect(early.deleted.sessions).toBe(0);
    const expired = await harness.request(`/v1/sessions/${id}`);
    expect(await expired.json()).toMatchObject({ state: "done", next: { kind: "done", reason: "expired" } });

    ahead.ms = 2 * TTL_SECONDS * 1000 + 5000;
    const pass = await harness.service.pruner.pruneOnce();
    expect(pass.deleted.sessions).toBe(1);
    expect((await harness.request(`/v1/sessions/${id}`)).status).toBe(404);
    // One mechanism: the pruner's pass is the only pruning; the sessions have no job of their own.
    expect(harness.service.sessions.retention.retentionMs).toBe(TTL_SECONDS * 1000);
  });
});
