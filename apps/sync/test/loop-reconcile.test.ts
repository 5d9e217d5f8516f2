import type { EncryptionSettings } from "@sds/schemas";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeSupplierApi } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { screenedSurvey } from "./loop-surveys.ts";
import { storeCases } from "./store-cases.ts";
import { postJson } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * Reconciliation over HTTP on both stores: the marketplace's corrections recorded as transitions
 * of the outcome feed (source "reconcile", with their reason), conversion and earnings net of
 * the reversal, and the dry run that answers the same lines while recording nothing.
 */

const unsigned: EncryptionSettings = {
  Enabled: false,
  Algorithm: "SHA256",
  QueryParameter: "hash",
  EncryptionKey: null,
};
const SURVEY = 9301;

const { stores, usable } = storeCases("sds_sync_reconcile");

interface ReconcileAnswer {
  dryRun: boolean;
  applied: boolean;
  replayed: boolean;
  changed: number;
  unchanged: number;
  unknown: number;
  results: {
    token: string;
    status: string;
    outcome: string;
    previousOutcome: string | null;
    sequence: number | null;
  }[];
}
interface FeedPage {
  outcomes: {
    sequence: number;
    token: string;
    outcome: string;
    previousOutcome: string | null;
    source: string;
    reason: string | null;
  }[];
}
interface Totals {
  entries: number;
  completes: number;
  terminates: number;
  reversals: number;
  earnings: number;
}

describe.each(stores)("reconciliation over HTTP on $name", (store) => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
  });

  /** sds-sync with one live survey (Cpi 4.00) and two entries, each completed by the marketplace's S2S call. */
  async function startWithTwoCompletes(): Promise<ServiceHarness> {
    api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [
            screenedSurvey({
              SurveyId: SURVEY,
              Cpi: "4.00",
              Ir: "50",
              SurveyUrl: `https://survey.example.com/s/${SURVEY}?rid=[%RID%]`,
            }),
          ],
          account: { OutgoingEncryption: unsigned },
        },
      ],
    });
    const database = store.database();
    const service = await startServiceHarness({
      api,
      config: { maxClosureShare: 1 },
      ...(database ? { database } : {}),
    });
    harness = service;
    await waitFor(
      async () =>
        (await postJson(service, "/v1/entry-links", { surveyId: SURVEY, token: "tok-1", uid: "r1" })).status === 201,
      20_000,
    );
    expect((await postJson(service, "/v1/entry-links", { surveyId: SURVEY, token: "tok-2", uid: "r2" })).status).toBe(
      201,
    );
    for (const token of ["tok-1", "tok-2"])
      expect((await fetch(`${service.service.outcomesUrl}/v1/outcomes/complete?vq_token=${token}`)).status).toBe(200);
    return service;
  }
  const reconcile = async (service: ServiceHarness, body: unknown) => {
    const response = await postJson(service, "/v1/outcomes/reconcile", body);
    expect(response.status).toBe(200);
    return (await response.json()) as ReconcileAnswer;
  };
  const feed = async (service: ServiceHarness) =>
    ((await (await service.request("/v1/outcomes?after=0&limit=100")).json()) as FeedPage).outcomes;
  const lifetime = async (service: ServiceHarness) =>
    ((await (await service.request("/v1/sync/status")).json()) as { loop: { totals: { lifetime: Totals } } }).loop
      .totals.lifetime;

  const corrections = [
    { token: "tok-1", outcome: "terminate", reason: "speeder: rejected in the quality review" },
    { token: "tok-1", outcome: "terminate" },
    { token: "tok-2", outcome: "complete" },
    { token: "nobody-issued-this", outcome: "terminate" },
  ];

  it("records a complete reconciled into a terminate as a transition with its reason, and reports earnings net of the reversal", async (context) => {
    if (!usable(store)) context.skip();
    const service = await startWithTwoCompletes();
    expect(await lifetime(service)).toMatchObject({
      entries: 2,
      completes: 2,
      terminates: 0,
      reversals: 0,
      earnings: 8,
    });

    const answer = await reconcile(service, { outcomes: corrections });
    expect(answer).toEqual({
      dryRun: false,
      applied: true,
      replayed: false,
      changed: 1,
      unchanged: 2,
      unknown: 1,
      results: [
        { token: "tok-1", status: "changed", outcome: "terminate", previousOutcome: "complete", sequence: 3 },
        { token: "tok-1", status: "unchanged", outcome: "terminate", previousOutcome: null, sequence: null },
        { token: "tok-2", status: "unchanged", outcome: "complete", previousOutcome: null, sequence: null },
        {
          token: "nobody-issued-this",
          status: "unknown-token",
          outcome: "terminate",
          previousOutcome: null,
          sequence: null,
        },
      ],
    });
    const outcomes = await feed(service);
    expect(outcomes).toHaveLength(3);
    expect(outcomes[2]).toMatchObject({
      sequence: 3,
      token: "tok-1",
      outcome: "terminate",
      previousOutcome: "complete",
      source: "reconcile",
      reason: "speeder: rejected in the quality review",
    });
    expect(await lifetime(service)).toMatchObject({
      entries: 2,
      completes: 1,
      terminates: 1,
      reversals: 1,
      earnings: 4,
    });
  });

  it("answers a dry run line by line, in order, and records nothing", async (context) => {
    if (!usable(store)) context.skip();
    const service = await startWithTwoCompletes();
    const before = { outcomes: await feed(service), totals: await lifetime(service) };

    const preview = await reconcile(service, { outcomes: corrections, dryRun: true });
    expect(preview).toEqual({
      dryRun: true,
      applied: false,
      replayed: false,
      changed: 1,
      unchanged: 2,
      unknown: 1,
      results: [
        { token: "tok-1", status: "changed", outcome: "terminate", previousOutcome: "complete", sequence: null },
        // The first line's effect is seen by the second, as when recording.
        { token: "tok-1", status: "unchanged", outcome: "terminate", previousOutcome: null, sequence: null },
        { token: "tok-2", status: "unchanged", outcome: "complete", previousOutcome: null, sequence: null },
        {
          token: "nobody-issued-this",
          status: "unknown-token",
          outcome: "terminate",
          previousOutcome: null,
          sequence: null,
        },
      ],
    });
    const flipFlop = await reconcile(service, {
      outcomes: [
        { token: "tok-2", outcome: "security" },
        { token: "tok-2", outcome: "complete" },
      ],
      dryRun: true,
    });
    expect(flipFlop.results.map((line) => [line.status, line.previousOutcome])).toEqual([
      ["changed", "complete"],
      ["changed", "security"],
    ]);
    expect({ outcomes: await feed(service), totals: await lifetime(service) }).toEqual(before);

    // The same lines recorded answer as the preview said.
    const recorded = await reconcile(service, { outcomes: corrections });
    expect(recorded.results.map(({ sequence: _sequence, ...line }) => line)).toEqual(
      preview.results.map(({ sequence: _sequence, ...line }) => line),
    );
  });

  it("refuses a batch over 1000 lines with a 400, recording none of it, dry run or not", async (context) => {
    if (!usable(store)) context.skip();
    const service = await startWithTwoCompletes();
    const lines = Array.from({ length: 1001 }, () => ({ token: "tok-1", outcome: "terminate" }));
    for (const body of [
      { outcomes: lines },
      { outcomes: lines, dryRun: true },
      { outcomes: [] },
      { outcomes: [{ token: "tok-1", outcome: "rejected" }] },
      { outcomes: corrections, dryRun: "yes" },
    ]) {
      expect((await postJson(service, "/v1/outcomes/reconcile", body)).status, JSON.stringify(body).slice(0, 80)).toBe(
        400,
      );
    }
    expect((await reconcile(service, { outcomes: lines.slice(0, 1000), dryRun: true })).changed).toBe(1);
    expect(await feed(service)).toHaveLength(2);
    expect(await lifetime(service)).toMatchObject({ completes: 2, reversals: 0, earnings: 8 });
  });
});
