import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeServer,
  type FakeSupplierApi,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import type { ChangeType } from "../src/inventory-store/store.ts";
import { compareChanges, SyncModel } from "./convergence.ts";
import { waitFor } from "./harness.ts";
import { postgresLocation, sqliteLocation, withStore, type DatabaseLocation } from "./database-location.ts";
import { postgresAvailable } from "./postgres.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";

const available = await postgresAvailable();

/** Everything a reader can see in the store, for before/after comparisons. */
const snapshot = (database: DatabaseConfig) =>
  withStore(database, async (store) => {
    const page = await store.listSurveys({ status: "all", limit: 10_000 });
    const details = await Promise.all(page.surveys.map((survey) => store.getSurvey(survey.id)));
    return {
      details,
      changes: await store.listChanges(0, 100_000),
      sequence: await store.latestSequence(),
      runs: (await store.listRuns(1000)).length,
    };
  });

const qualificationRequests = (api: FakeSupplierApi) =>
  api.requestLog().filter((entry) => entry.operationId === "getSurveyQualifications").length;

describe.each([
  ["SQLite", true, () => sqliteLocation("sds-sync-crash-")],
  ["PostgreSQL", available, () => postgresLocation("sds_sync_crash")],
] as const)("atomicity on %s", (_name, enabled, createLocation) => {
  let api: FakeSupplierApi;
  let fake: FakeServer;
  let location: DatabaseLocation;
  const processes: ServiceProcess[] = [];
  afterEach(async () => {
    for (const each of processes.splice(0))
      if (each.child.exitCode === null && each.child.signalCode === null) each.child.kill("SIGKILL");
    await api.close();
    await location.cleanup();
  });
  const start = async () => {
    const service = spawnService({
      SDS_BASE_URL: fake.baseUrl,
      SDS_API_KEY: DEFAULT_API_KEY,
      DATABASE_URL: location.url,
      SYNC_INTERVAL: "3600",
      SYNC_CONCURRENCY: "4",
    });
    processes.push(service);
    return { service, url: await service.url };
  };
  const waitForSucceededRuns = (count: number) =>
    waitFor(
      () =>
        withStore(
          location.database,
          async (store) => (await store.listRuns(100)).filter((run) => run.status === "succeeded").length >= count,
        ),
      30_000,
    );

  it.skipIf(!enabled)(
    "survives kill -9 in the middle of a cycle: nothing of it is stored, and a restart converges",
    async () => {
      api = createFakeSupplierApi({
        suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 300 }],
        requestLogLimit: 1_000_000,
      });
      fake = await api.listen();
      location = createLocation();
      const model = new SyncModel();
      model.expectCycle(api);

      const first = await start();
      await waitForSucceededRuns(1);
      const before = await snapshot(location.database);
      expect(before.sequence).toBe(300);

      // A second cycle with plenty to do, slowed down so the kill lands among its fetches.
      const live = api.listSurveys(DEFAULT_SUPPLIER_ID);
      for (const survey of live.slice(0, 20)) api.closeSurvey(survey.SurveyId);
      for (const survey of live.slice(20, 170))
        api.replaceQualifications(survey.SurveyId, [
          { QualificationId: 1, QualificationTypeId: 1, OptionIds: [2], OptionCodes: ["2"] },
        ]);
      for (const survey of live.slice(170, 180)) api.updateSurvey(survey.SurveyId, { Cpi: "7.77" });
      for (let index = 0; index < 5; index += 1) api.addSurvey(DEFAULT_SUPPLIER_ID);
      const expectedChanges = model.expectCycle(api);
      api.faults.add({ kind: "latency", ms: 25, operation: "getSurveyQualifications" });
      const fetchedBefore = qualificationRequests(api);
      expect((await fetch(`${first.url}/v1/sync/run?wait=false`, { method: "POST" })).status).toBe(202);
      await waitFor(() => qualificationRequests(api) - fetchedBefore >= 40, 20_000);
      first.service.child.kill("SIGKILL");
      expect((await first.service.exited).signal).toBe("SIGKILL");

      const afterKill = await snapshot(location.database);
      expect(afterKill).toEqual(before);

      api.faults.clear();
      const second = await start();
      await waitForSucceededRuns(2);
      second.service.child.kill("SIGTERM");
      expect(await second.service.exited).toEqual({ code: 0, signal: null });

      await withStore(location.database, async (store) => {
        await model.assertStore(store);
        const changes = await store.listChanges(0, 100_000);
        expect(changes.map((change) => change.sequence)).toEqual(changes.map((_, index) => index + 1));
        const restartChanges = changes
          .slice(300)
          .map((change): [ChangeType, number] => [change.type, change.surveyId])
          .sort(compareChanges);
        expect(restartChanges).toEqual(expectedChanges);
        expect(restartChanges.filter(([type]) => type === "closed")).toHaveLength(20);
      });
    },
    90_000,
  );

  it.skipIf(!enabled)(
    "ends a running cycle cleanly on SIGTERM and exits 0 within a few seconds",
    async () => {
      api = createFakeSupplierApi({
        suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 200 }],
        requestLogLimit: 1_000_000,
      });
      fake = await api.listen();
      location = createLocation();
      api.faults.add({ kind: "latency", ms: 50, operation: "getSurveyQualifications" });
      const { service } = await start();
      await waitFor(() => qualificationRequests(api) >= 10, 20_000);

      const signalled = Date.now();
      service.child.kill("SIGTERM");
      expect(await service.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalled).toBeLessThan(5000);

      await withStore(location.database, async (store) => {
        expect(await store.listSurveys({ status: "all", limit: 10 })).toMatchObject({ surveys: [] });
        expect(await store.latestSequence()).toBe(0);
        expect(await store.listRuns(10)).toMatchObject([
          { status: "failed", error: expect.stringMatching(/^aborted/) as unknown },
        ]);
      });
      expect(service.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
      // A deploy is no incident: the abandoned cycle is logged at info, and nothing at error level or above.
      expect(service.output.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
      expect(
        service.output.some((line) => line.includes('"level":30') && line.includes("cycle aborted by shutdown")),
      ).toBe(true);
    },
    60_000,
  );
});
