import type { FakeSupplierApi, SurveyInit } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, type SyncConfig } from "../src/config/config.ts";
import { waitFor } from "./harness.ts";
import { ManualClock } from "./manual-clock.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { storeCases } from "./store-cases.ts";
import { postJson } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Yield ranking over HTTP on both stores: outcomes recorded through the receiver for entry links
 * issued by the service move `order: "yield"` (counts reloaded from the store every 2 s of the
 * loop's clock, which the test moves instead of waiting), explain
 * reports the estimate and what it rests on, a reversal lowers it, and two replicas on one
 * PostgreSQL rank alike.
 */

/** CONVERTS: Cpi × Ir = 2 × 0.2 = 0.4. STALLS: 4 × 0.5 = 2.0, ranked first by earnings. PRICED: the marketplace publishes a conversion for it. */
const [CONVERTS, STALLS, PRICED] = [9201, 9202, 9203] as const;
const open = (id: number, cpi: string, ir: string): SurveyInit => loopSurvey(id, { Cpi: cpi, Ir: ir });
const inventory = [open(CONVERTS, "2.00", "20"), open(STALLS, "4.00", "50"), open(PRICED, "1.00", "30")];
/** Outcomes per survey: fewer than the cut-off (20), so nothing is held out and only the estimate moves. */
const OUTCOMES = 15;

const { stores, usable } = storeCases("sds_sync_yield");

/** The yield settings sds-sync reads from `env` (the harness gives the upstream, the store and the port). */
function yieldSettingsFromEnv(env: Record<string, string>): Partial<SyncConfig> {
  const { yieldPriorStrength, yieldCutoffEntries, yieldCooldownSeconds } = loadConfig({
    SDS_BASE_URL: "https://sds.example.com/api/v1",
    SDS_API_KEY: "unused-by-the-harness",
    ...env,
  });
  return { yieldPriorStrength, yieldCutoffEntries, yieldCooldownSeconds };
}

interface YieldExplanation {
  estimate: number;
  prior: { mean: number; strength: number; source: "marketplace" | "ir" };
  evidence: { decided: number; completes: number };
  draw?: number;
  score?: number;
}
interface MatchAnswer {
  surveys: { SurveyId: number }[];
  explanation?: { eligible: boolean; yield?: YieldExplanation };
}

describe.each(stores)("yield ranking over HTTP on $name", (store) => {
  const harnesses: ServiceHarness[] = [];
  let api: FakeSupplierApi | undefined;
  /** The loop's clock of every replica a test starts: moved 2 s (a reload of the counts) at each check of a wait. */
  let clock = new ManualClock();
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
    await api?.close();
    api = undefined;
    clock = new ManualClock();
  });
  /** Waits until `condition` holds, moving the loop's clock by a reload interval before each check. */
  const reloadUntil = (condition: () => Promise<boolean>) =>
    waitFor(async () => {
      clock.advance(2000);
      return condition();
    }, 20_000);

  async function start(database = store.database(), config: Partial<SyncConfig> = {}): Promise<ServiceHarness> {
    if (api === undefined) {
      api = loopFake(inventory);
      // Stats with no conversion leave the prior on Ir; PRICED's says 12.5 %.
      api.setSurveyStats(CONVERTS, {});
      api.setSurveyStats(STALLS, {});
      api.setSurveyStats(PRICED, { Global: { SystemConversion: 12.5 } });
    }
    const harness = await startServiceHarness({
      api,
      config: { maxClosureShare: 1, ...config },
      clock,
      ...(database ? { database } : {}),
    });
    harnesses.push(harness);
    return harness;
  }
  const match = async (harness: ServiceHarness, body: Record<string, unknown>) => {
    const response = await postJson(harness, "/v1/match", { answers: {}, ...body });
    expect(response.status).toBe(200);
    return (await response.json()) as MatchAnswer;
  };
  const ids = (answer: MatchAnswer) => answer.surveys.map((survey) => survey.SurveyId);
  const explainYield = async (harness: ServiceHarness, surveyId: number) =>
    (await match(harness, { order: "yield", explore: false, explain: surveyId })).explanation?.yield;
  /** Waits until the leader read every survey's stats and this replica's matcher holds them. */
  const statsRead = (harness: ServiceHarness) =>
    reloadUntil(async () => (await explainYield(harness, PRICED))?.prior.source === "marketplace");

  /** Issues an entry link per outcome and reports each through the receiver, as the marketplace's S2S call. */
  async function recordOutcomes(
    harness: ServiceHarness,
    surveyId: number,
    outcomes: readonly string[],
  ): Promise<string[]> {
    const tokens: string[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const token = `t-${surveyId}-${index}`;
      const uid = `u-${surveyId}-${index}`;
      expect((await postJson(harness, "/v1/entry-links", { surveyId, token, uid })).status).toBe(201);
      const received = await fetch(`${harness.service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${token}`);
      expect(received.status).toBe(200);
      tokens.push(token);
    }
    return tokens;
  }
  /** Waits until the replica's reload (every 2 s of its clock) brought the counts of the survey to `decided` and `completes`. */
  const evidenceReads = (harness: ServiceHarness, surveyId: number, decided: number, completes: number) =>
    reloadUntil(async () => {
      const evidence = (await explainYield(harness, surveyId))?.evidence;
      return evidence?.decided === decided && evidence.completes === completes;
    });

  async function learnBoth(harness: ServiceHarness): Promise<string[]> {
    const converted = await recordOutcomes(
      harness,
      CONVERTS,
      Array.from({ length: OUTCOMES }, () => "complete"),
    );
    await recordOutcomes(
      harness,
      STALLS,
      Array.from({ length: OUTCOMES }, (_, index) => (index % 3 === 0 ? "overquota" : "terminate")),
    );
    await evidenceReads(harness, CONVERTS, OUTCOMES, OUTCOMES);
    await evidenceReads(harness, STALLS, OUTCOMES, 0);
    return converted;
  }

  it("ranks a survey that converts above one with a higher Cpi × Ir that never completed, once the outcomes are in", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    await statsRead(service);
    // Before any outcome both orders agree: the prior is Ir, so yield's mean is Cpi × Ir / 100.
    expect(ids(await match(service, {}))).toEqual([STALLS, CONVERTS, PRICED]);
    expect(ids(await match(service, { order: "yield", explore: false }))).toEqual([STALLS, CONVERTS, PRICED]);

    await learnBoth(service);
    expect(ids(await match(service, { order: "earnings" }))).toEqual([STALLS, CONVERTS, PRICED]);
    // Posterior means: CONVERTS (2 + 15) / 25 = 0.68 → 1.36; STALLS 5 / 25 = 0.2 → 0.80; PRICED (1.25 / 10) → 0.125.
    expect(ids(await match(service, { order: "yield", explore: false }))).toEqual([CONVERTS, STALLS, PRICED]);
    // With exploration each match draws from the posteriors: CONVERTS still comes first nearly always (about 94 % a draw).
    let convertsFirst = 0;
    for (let draw = 0; draw < 40; draw++)
      if (ids(await match(service, { order: "yield", limit: 1 }))[0] === CONVERTS) convertsFirst += 1;
    expect(convertsFirst).toBeGreaterThanOrEqual(28);
    expect(convertsFirst).toBeLessThanOrEqual(40);
  });

  it("ranks the same way on every request without exploration, and differently with it", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    await statsRead(service);
    const answers = new Set<string>();
    for (let request = 0; request < 20; request++) {
      const answer = await match(service, { order: "yield", explore: false, explain: STALLS });
      answers.add(JSON.stringify({ ids: ids(answer), explanation: answer.explanation }));
    }
    expect(answers.size).toBe(1);
    // Exploring, STALLS's draw (Beta(5, 5), explained for the same request) differs from request to request.
    const draws = new Set<number | undefined>();
    for (let request = 0; request < 20; request++)
      draws.add((await match(service, { order: "yield", explain: STALLS })).explanation?.yield?.draw);
    expect(draws.size).toBeGreaterThan(10);
  });

  it("explains the estimate, its prior (the marketplace's conversion where published, else Ir) and the evidence", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    await statsRead(service);
    expect(await explainYield(service, PRICED)).toEqual({
      estimate: 0.125,
      prior: { mean: 0.125, strength: 10, source: "marketplace" },
      evidence: { decided: 0, completes: 0 },
      score: 0.125,
    });
    const before = await explainYield(service, CONVERTS);
    expect(before).toEqual({
      estimate: 0.2,
      prior: { mean: 0.2, strength: 10, source: "ir" },
      evidence: { decided: 0, completes: 0 },
      score: 0.4,
    });
    await learnBoth(service);
    const after = await explainYield(service, CONVERTS);
    expect(after?.estimate).toBeCloseTo(0.68, 10);
    expect(after?.evidence).toEqual({ decided: OUTCOMES, completes: OUTCOMES });
    expect(after?.prior).toEqual(before?.prior);
    // Under earnings there is no yield to explain.
    expect((await match(service, { explain: CONVERTS })).explanation?.yield).toBeUndefined();
  });

  it("lowers the estimate when the marketplace reverses a complete", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    await statsRead(service);
    const converted = await learnBoth(service);
    const before = (await explainYield(service, CONVERTS))?.estimate ?? Number.NaN;
    const reversed = await postJson(service, "/v1/outcomes/reconcile", {
      outcomes: [{ token: converted[0], outcome: "terminate", reason: "quality: speeder" }],
    });
    expect(reversed.status).toBe(200);
    expect(await reversed.json()).toMatchObject({ changed: 1 });
    await evidenceReads(service, CONVERTS, OUTCOMES, OUTCOMES - 1);
    const after = (await explainYield(service, CONVERTS))?.estimate ?? Number.NaN;
    expect(after).toBeCloseTo(16 / 25, 10);
    expect(after).toBeLessThan(before);
  });

  it("holds a survey out of yield order after SYNC_YIELD_CUTOFF_ENTRIES decided entries without a complete", async (context) => {
    if (!usable(store)) context.skip();
    // The setting as an operator gives it: through the environment and the configuration loader.
    const service = await start(store.database(), yieldSettingsFromEnv({ SYNC_YIELD_CUTOFF_ENTRIES: "5" }));
    await statsRead(service);
    await recordOutcomes(service, STALLS, ["terminate", "overquota", "terminate", "security", "terminate"]);
    await evidenceReads(service, STALLS, 5, 0);
    const explained = await match(service, { order: "yield", explore: false, explain: STALLS });
    expect(explained.explanation?.eligible).toBe(false);
    expect(explained.explanation).toMatchObject({ reasons: [{ kind: "yield-cutoff", decided: 5 }] });
    expect(ids(await match(service, { order: "yield", explore: false }))).toEqual([CONVERTS, PRICED]);
    // Earnings order does not hold it out.
    expect(ids(await match(service, { order: "earnings" }))).toEqual([STALLS, CONVERTS, PRICED]);
  });

  // Replicas share a store only on PostgreSQL: registered there alone, not reported as skipped on SQLite.
  if (store.name === "PostgreSQL")
    it("ranks alike on two replicas of one PostgreSQL once each reloaded the counts", async (context) => {
      if (!usable(store)) context.skip();
      const database = store.database();
      const first = await start(database);
      const second = await start(database);
      await statsRead(first);
      await statsRead(second);
      await learnBoth(first);
      // The second replica recorded nothing itself: it learns from the store.
      await evidenceReads(second, CONVERTS, OUTCOMES, OUTCOMES);
      await evidenceReads(second, STALLS, OUTCOMES, 0);
      for (const surveyId of [CONVERTS, STALLS, PRICED])
        expect(await explainYield(second, surveyId)).toEqual(await explainYield(first, surveyId));
      expect(ids(await match(second, { order: "yield", explore: false }))).toEqual(
        ids(await match(first, { order: "yield", explore: false })),
      );
      expect(ids(await match(second, { order: "yield", explore: false }))).toEqual([CONVERTS, STALLS, PRICED]);
    });
});
