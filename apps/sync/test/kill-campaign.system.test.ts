import {
  createFakeSupplierApi,
  createSeededRandom,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeSupplierApi,
  type SeededRandom,
} from "@sds/testing";
import { describe, expect, it } from "vitest";
import type { ChangeRecord, SyncStore } from "../src/inventory-store/store.ts";
import { waitFor } from "./harness.ts";
import { postgresLocation, sqliteLocation, withStore } from "./database-location.ts";
import { postgresAvailable } from "./postgres.ts";
import { spawnService } from "./subprocess.ts";

const available = await postgresAvailable();
/** The seed of the kill points and the churn; set SDS_KILL_SEED to replay a campaign. */
const seed = Number(process.env.SDS_KILL_SEED ?? 20_261_123);
const ROUNDS = 6;
/** Rounds killed during the first sync; the others are killed among churn cycles. */
const FIRST_SYNC_KILLS = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Upstream churn of one round: a few closures, a reopening, new prices, new qualifications, new surveys (well under the mass-closure guard's share). */
function churn(api: FakeSupplierApi, random: SeededRandom): void {
  const live = api.listSurveys(DEFAULT_SUPPLIER_ID, "live");
  const closed = api.listSurveys(DEFAULT_SUPPLIER_ID, "closed");
  for (const survey of random.sample(live, 2)) api.closeSurvey(survey.SurveyId);
  for (const survey of random.sample(closed, 1)) api.reopenSurvey(survey.SurveyId);
  for (const survey of random.sample(live, 3))
    api.updateSurvey(survey.SurveyId, { Cpi: `${random.int(1, 9)}.${random.int(10, 99)}` });
  for (const survey of random.sample(live, 3)) {
    api.replaceQualifications(survey.SurveyId, [
      { QualificationId: 42, QualificationTypeId: 1, OptionIds: [random.int(1, 9)], OptionCodes: ["1"] },
    ]);
  }
  for (let index = 0; index < 2; index += 1) api.addSurvey(DEFAULT_SUPPLIER_ID);
}

/** The store holds what the fake holds: every live survey with its records, closed ones closed (or never seen), nothing else. */
async function expectStoreEqualsFake(store: SyncStore, api: FakeSupplierApi): Promise<void> {
  const everything = api.listSurveys(DEFAULT_SUPPLIER_ID, "all");
  const known = new Set(everything.map((survey) => survey.SurveyId));
  const { surveys } = await store.listSurveys({ status: "all", limit: 10_000 });
  expect(surveys.filter((survey) => !known.has(survey.id))).toEqual([]);
  const stored = new Map(surveys.map((survey) => [survey.id, survey]));
  for (const survey of everything) {
    const upstream = api.getSurvey(survey.SurveyId);
    if (!upstream?.live) {
      expect(stored.get(survey.SurveyId)?.status ?? "closed").toBe("closed");
      continue;
    }
    const detail = await store.getSurvey(survey.SurveyId);
    expect(detail, `survey ${survey.SurveyId}`).toMatchObject({
      status: "live",
      needsRefetch: false,
      survey: upstream.survey,
      qualifications: upstream.qualifications,
    });
    expect(detail?.quotas).toEqual(upstream.survey.Has_Quotas ? upstream.quotas : []);
  }
}

/** The feed is gapless and ordered, and replaying it gives every survey the status it has. */
async function expectFeedTellsTheStore(store: SyncStore): Promise<ChangeRecord[]> {
  const changes = await store.listChanges(0, 100_000);
  expect(changes.map((change) => change.sequence)).toEqual(changes.map((_, index) => index + 1));
  const times = changes.map((change) => Date.parse(change.occurredAt));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  const status = new Map<number, "live" | "closed">();
  for (const change of changes) {
    const before = status.get(change.surveyId);
    if (change.type === "opened") expect(before, `opened ${change.surveyId} twice`).toBeUndefined();
    else if (change.type === "reopened") expect(before).toBe("closed");
    else expect(before, `${change.type} of ${change.surveyId} while ${String(before)}`).toBe("live");
    status.set(change.surveyId, change.type === "closed" ? "closed" : "live");
  }
  const { surveys } = await store.listSurveys({ status: "all", limit: 10_000 });
  expect(Object.fromEntries(surveys.map((survey) => [survey.id, survey.status]))).toEqual(Object.fromEntries(status));
  return changes;
}

describe.each([
  ["SQLite", true, () => sqliteLocation("sds-sync-kill-")],
  ["PostgreSQL", available, () => postgresLocation("sds_sync_kill")],
] as const)("a SIGKILL campaign on %s", (name, enabled, createLocation) => {
  it.skipIf(!enabled)(
    `kills sds-sync at ${ROUNDS} random points of its first sync and of churn cycles, and the store still equals the fake with a gapless feed`,
    async () => {
      const random = createSeededRandom(seed + (name === "SQLite" ? 0 : 1));
      const api = createFakeSupplierApi({
        seed,
        suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 120 }],
        requestLogLimit: 1_000_000,
      });
      const fake = await api.listen();
      const location = createLocation();
      const env = {
        SDS_BASE_URL: fake.baseUrl,
        SDS_API_KEY: DEFAULT_API_KEY,
        DATABASE_URL: location.url,
        SYNC_INTERVAL: "0.3",
        SYNC_CONCURRENCY: "4",
      };
      // Slow per-survey answers stretch the first sync over many kill points.
      api.faults.add({ kind: "latency", ms: 15, operation: ["getSurveyQualifications", "getSurveyQuotas"] });
      const killPoints: string[] = [];
      try {
        const committed = () =>
          withStore(
            location.database,
            async (store) => (await store.listRuns(1000)).filter((run) => run.status === "succeeded").length,
          );
        for (let round = 0; round < ROUNDS; round += 1) {
          const service = spawnService(env);
          await service.url;
          const requestsAtStart = api.requestLog().length;
          let phase: string;
          let delay: number;
          if (round < FIRST_SYNC_KILLS) {
            // Killed during the first sync (the store is empty or holds nothing of it).
            phase = "first sync";
            delay = random.int(50, 900);
            await sleep(delay);
          } else {
            // Let the start-up cycle commit, change the upstream, and kill among the churn cycles (one every 0.3 s).
            const before = await committed();
            await waitFor(async () => (await committed()) > before, 30_000);
            churn(api, random);
            phase = "churn";
            delay = random.int(0, 700);
            await sleep(delay / 2);
            churn(api, random);
            await sleep(delay / 2);
          }
          service.child.kill("SIGKILL");
          expect((await service.exited).signal).toBe("SIGKILL");
          killPoints.push(
            `${phase}, ${delay} ms in (${api.requestLog().length - requestsAtStart} upstream requests, ${await committed()} cycles committed in all)`,
          );
        }

        // A last start with no kill: it must converge on the fake from whatever the kills left.
        api.faults.clear();
        const finalStart = Date.now();
        const service = spawnService(env);
        await service.url;
        await waitFor(
          () =>
            withStore(location.database, async (store) =>
              (await store.listRuns(5)).some(
                (run) => run.status === "succeeded" && run.startedAt.getTime() >= finalStart,
              ),
            ),
          30_000,
        );
        service.child.kill("SIGTERM");
        expect(await service.exited).toEqual({ code: 0, signal: null });

        await withStore(location.database, async (store) => {
          await expectStoreEqualsFake(store, api);
          const changes = await expectFeedTellsTheStore(store);
          console.info(
            `SIGKILL campaign on ${name} (seed ${seed}): ${ROUNDS} kill points: ${killPoints.join("; ")}; then ${changes.length} changes, gapless`,
          );
        });
      } finally {
        await api.close();
        await location.cleanup();
      }
    },
    90_000,
  );
});
