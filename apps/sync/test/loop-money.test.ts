import type { FakeSupplierApi } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { postJson, readLoopFigures, receiveOutcome } from "./loop-traffic.ts";
import { storeCases } from "./store-cases.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Money that bad upstream data cannot poison, over HTTP on both stores: an upstream that serves
 * Cpis that are not prices ("-5", "NaN", "Infinity", "1e400", "", absurdly large) gets those
 * surveys quarantined, so no entry and no sum carries them (test/money-at-ingest.test.ts has
 * SYNC_MAX_CPI's edge); prices with many decimals are kept
 * exactly, and the totals of the status are exact, finite and never negative.
 */

const [DIME, SUBCENT, NEGATIVE, HUGE, NOT_A_NUMBER, INFINITE, EXPONENT, EMPTY] = [
  9501, 9502, 9503, 9504, 9505, 9506, 9507, 9508,
] as const;
/** The fake serves only decimal strings: these stand-ins are rewritten on the wire into what a hostile upstream sends. */
const onTheWire = new Map([
  ["901.01", "NaN"],
  ["902.02", "Infinity"],
  ["903.03", "1e400"],
  ["904.04", ""],
]);
const inventory = [
  loopSurvey(DIME, { Cpi: "0.10" }),
  loopSurvey(SUBCENT, { Cpi: "12.345678" }),
  loopSurvey(NEGATIVE, { Cpi: "-5" }),
  loopSurvey(HUGE, { Cpi: "99999999999999999999999" }),
  loopSurvey(NOT_A_NUMBER, { Cpi: "901.01" }),
  loopSurvey(INFINITE, { Cpi: "902.02" }),
  loopSurvey(EXPONENT, { Cpi: "903.03" }),
  loopSurvey(EMPTY, { Cpi: "904.04" }),
];

/** sds-sync's view of the fake: every JSON answer with the stand-in Cpis replaced by the hostile ones. */
async function hostileCpis(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!(response.headers.get("content-type") ?? "").includes("json")) return response;
  let text = await response.text();
  for (const [standIn, hostile] of onTheWire) text = text.replaceAll(`"Cpi":"${standIn}"`, `"Cpi":"${hostile}"`);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}

const { stores, usable } = storeCases("sds_sync_money");

describe.each(stores)("money from a hostile upstream on $name", (store) => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
  });

  async function start(): Promise<ServiceHarness> {
    api = loopFake(inventory);
    const database = store.database();
    harness = await startServiceHarness({
      api,
      config: { maxClosureShare: 1 },
      fetch: hostileCpis,
      ...(database ? { database } : {}),
    });
    return harness;
  }
  const link = (service: ServiceHarness, surveyId: number, token: string) =>
    postJson(service, "/v1/entry-links", { surveyId, token, uid: `uid-${token}` });

  it("routes no survey whose Cpi is not a price, and keeps every total exact, finite and non-negative", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start();
    // The matcher follows the start-up cycle: wait until it offers the priced surveys.
    await waitFor(async () => {
      const response = await postJson(service, "/v1/match", { answers: {}, limit: 50 });
      const ids = ((await response.json()) as { surveys: { SurveyId: number }[] }).surveys.map((s) => s.SurveyId);
      return ids.includes(DIME) && ids.includes(SUBCENT);
    }, 20_000);
    const matched = (await (await postJson(service, "/v1/match", { answers: {}, limit: 50 })).json()) as {
      surveys: { SurveyId: number }[];
    };
    expect(matched.surveys.map((survey) => survey.SurveyId).sort()).toEqual([DIME, SUBCENT]);

    // A price that is not one is quarantined at ingest with the reason (SYNC_MAX_CPI, issue 32): never
    // stored, so never linked; those the wire schema refuses are quarantined as malformed.
    const status = (await (await service.request("/v1/sync/status")).json()) as {
      quarantine: { surveyId: number | null; issues: { path: string[]; message: string }[] }[];
    };
    for (const surveyId of [NEGATIVE, HUGE]) {
      const entry = status.quarantine.find((item) => item.surveyId === surveyId);
      expect(entry?.issues[0]?.message).toMatch(/Cpi .* is (not a price|above)/);
    }
    for (const surveyId of [NEGATIVE, HUGE, NOT_A_NUMBER, INFINITE, EXPONENT, EMPTY])
      expect((await link(service, surveyId, `bad-${surveyId}`)).status).toBe(404);
    expect((await service.request(`/v1/surveys/${NOT_A_NUMBER}`)).status).toBe(404);
    expect((await service.request(`/v1/surveys/${HUGE}`)).status).toBe(404);

    // Three completes at 0.10 and one at 12.345678: 12.645678 exactly, not a float's 12.645678000000002.
    for (const token of ["d1", "d2", "d3"]) {
      expect((await link(service, DIME, token)).status).toBe(201);
      await receiveOutcome(service, "complete", token);
    }
    expect((await link(service, SUBCENT, "s1")).status).toBe(201);
    await receiveOutcome(service, "complete", "s1");
    const figures = await readLoopFigures(service);
    expect(figures.totals.lifetime.earnings).toBe(12.645678);
    expect(figures.totals.last24h.earnings).toBe(12.645678);
    expect(figures.totals.last7d.earnings).toBe(12.645678);
    const perSurvey = figures.surveys as { surveyId: number; lifetime: { earnings: number } }[];
    expect(perSurvey.find((survey) => survey.surveyId === DIME)?.lifetime.earnings).toBe(0.3);

    // A reversal takes the complete back to exactly nothing, never below.
    const reversed = await postJson(service, "/v1/outcomes/reconcile", {
      outcomes: [{ token: "s1", outcome: "terminate", reason: "quality" }],
    });
    expect(reversed.status).toBe(200);
    const after = await readLoopFigures(service);
    for (const window of ["lifetime", "last24h", "last7d"] as const) {
      expect(after.totals[window].earnings).toBe(0.3);
      expect(Number.isFinite(after.totals[window].earningsPerEntry)).toBe(true);
      expect(after.totals[window].entries).toBe(4);
    }
  });
});
