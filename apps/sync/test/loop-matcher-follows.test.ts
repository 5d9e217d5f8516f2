import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeSupplierApi,
  type SurveyInit,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { screenedSurvey } from "./loop-surveys.ts";
import { storeCases } from "./store-cases.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/** Only its PostgreSQL half: the tests on SQLite start the harness with its default store. */
const { postgres, postgresDatabase } = storeCases("sds_loop_matcher");

/** A survey screening on gender (43). */
const survey = (id: number, codes: readonly string[]): SurveyInit =>
  screenedSurvey({ SurveyId: id, Cpi: "2.00", Ir: "50" }, { question: 43, codes });

async function matchedIds(service: ServiceHarness, answers: Record<string, string[]>): Promise<number[]> {
  const response = await service.request("/v1/match", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ answers }),
  });
  return ((await response.json()) as { surveys: { SurveyId: number }[] }).surveys.map((each) => each.SurveyId);
}

describe("the matcher follows the store", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const fake = (): FakeSupplierApi => {
    const api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [survey(8001, ["1"]), survey(8002, ["2"])],
        },
      ],
    });
    cleanups.push(() => api.close());
    return api;
  };

  it("never routes to a survey awaiting a refetch, though no feed entry says so, and routes to it again once refetched", async () => {
    const api = fake();
    const service = await startServiceHarness({ api });
    cleanups.push(() => service.close());
    expect(await matchedIds(service, { "43": ["1"] })).toEqual([8001]);

    // New qualifications whose fetch fails: the survey awaits a refetch with its old ones still stored.
    api.replaceQualifications(8001, [
      { QualificationId: 43, QualificationTypeId: 1, OptionIds: [1, 2], OptionCodes: ["1", "2"] },
    ]);
    api.faults.add({ kind: "status", status: 500, path: "/survey-qualifications/8001", count: 1 });
    await service.request("/v1/sync/run", { method: "POST" });
    await waitFor(async () => (await matchedIds(service, { "43": ["1"] })).length === 0);
    const explained = await service.request("/v1/match", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ answers: { "43": ["1"] }, explain: 8001 }),
    });
    expect(
      ((await explained.json()) as { explanation: { reasons: { kind: string }[] } }).explanation.reasons.map(
        (reason) => reason.kind,
      ),
    ).toEqual(["not-stored"]);

    await service.request("/v1/sync/run", { method: "POST" });
    await waitFor(async () => (await matchedIds(service, { "43": ["2"] })).join() === "8001,8002");
  });

  /** Matches, changes a listed survey upstream, syncs, and returns the names the answers listed before and after. */
  async function namesAcrossAChange(service: ServiceHarness, api: FakeSupplierApi): Promise<string[]> {
    const names = async () => {
      const response = await service.request("/v1/match", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ answers: { "43": ["1"] } }),
      });
      return ((await response.json()) as { surveys: { Name: string }[] }).surveys.map((each) => each.Name);
    };
    api.updateSurvey(8001, { Name: "before" });
    await service.request("/v1/sync/run", { method: "POST" });
    await waitFor(async () => (await names()).join() === "before");
    // Read twice: the second answer comes from the matcher's record cache.
    const cached = await names();
    api.updateSurvey(8001, { Name: "after" });
    await service.request("/v1/sync/run", { method: "POST" });
    await waitFor(async () => (await names()).join() !== "before");
    return [...cached, ...(await names())];
  }

  it("lists each survey's record as stored by the last cycle the matcher followed, never a stale cached copy", async () => {
    const api = fake();
    const service = await startServiceHarness({ api });
    cleanups.push(() => service.close());
    expect(await namesAcrossAChange(service, api)).toEqual(["before", "after"]);
    expect(service.service.loop.liveMatcher.recordCache.records).toBe(1);
  });

  describe("on PostgreSQL", () => {
    it("lists each survey's record as stored by the last cycle the matcher followed, never a stale cached copy", async (context) => {
      if (!postgres()) context.skip();
      const api = fake();
      const service = await startServiceHarness({ api, database: postgresDatabase() });
      cleanups.push(() => service.close());
      expect(await namesAcrossAChange(service, api)).toEqual(["before", "after"]);
    });

    it("keeps a follower replica's matcher current with the leader's cycles, and both see the outcomes either records", async (context) => {
      if (!postgres()) context.skip();
      const api = fake();
      // One schema for both replicas: the follower sees the leader's cycles through it.
      const database = postgresDatabase();
      const leader = await startServiceHarness({ api, database, replicaId: "leader" });
      cleanups.push(() => leader.close());
      const follower = await startServiceHarness({ api, database, replicaId: "follower" });
      cleanups.push(() => follower.close());
      expect(follower.service.engine.status().leader).toBe(false);
      expect(await matchedIds(follower, { "43": ["2"] })).toEqual([8002]);

      api.addSurvey(DEFAULT_SUPPLIER_ID, survey(8003, ["2"]));
      await leader.request("/v1/sync/run", { method: "POST" });
      await waitFor(async () => (await matchedIds(follower, { "43": ["2"] })).join() === "8002,8003");

      expect((await follower.request("/v1/outcomes/complete?vq_token=replica-token")).status).toBe(200);
      expect((await leader.request("/v1/outcomes/complete?vq_token=replica-token")).status).toBe(200);
      const listed = (await (await leader.request("/v1/outcomes")).json()) as { outcomes: unknown[] };
      expect(listed.outcomes).toHaveLength(1);
    });
  });
});
