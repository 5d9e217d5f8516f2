import { DEFAULT_API_KEY, type FakeSupplierApi } from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { postgresLocation, sqliteLocation, type DatabaseLocation } from "./database-location.ts";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { lifetimeFromFeed, readLoopFigures, readOutcomeFeed } from "./loop-traffic.ts";
import { postgresAvailable } from "./postgres.ts";
import type { ServiceHarness } from "./service-harness.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";

/*
 * SIGKILL while reconciliation batches are being recorded, on both stores: every batch sds-sync
 * acknowledged (200) is in the feed whole, every batch the kill cut off is there whole or not at
 * all (one transaction), and sending a cut-off batch again with its Idempotency-Key after the
 * restart applies it exactly once: replayed if it had committed, recorded if not. The counts the
 * status reports then agree with a recount of the feed.
 */

const available = await postgresAvailable();
const SURVEY = 9304;
const CPI = 3;
/** Token groups, one per sender: a sender's batches flip its own group (terminate, then complete again). */
const SENDERS = 4;
const TOKENS_PER_GROUP = 25;
/** Acknowledged batches before each kill. */
const KILL_AFTER_BATCHES = [6, 14] as const;

const overHttp = (url: string): ServiceHarness =>
  ({ request: (path: string, init?: RequestInit) => fetch(`${url}${path}`, init) }) as Pick<
    ServiceHarness,
    "request"
  > as ServiceHarness;

/** One batch sent: its key, its lines' reason (unique to it), and whether sds-sync acknowledged it. */
interface SentBatch {
  readonly key: string;
  readonly reason: string;
  readonly tokens: readonly string[];
  acknowledged: boolean;
}

const batchBody = (batch: SentBatch) => ({
  outcomes: [
    ...batch.tokens.map((token) => ({ token, outcome: "terminate", reason: batch.reason })),
    ...batch.tokens.map((token) => ({ token, outcome: "complete", reason: batch.reason })),
  ],
});

const sendBatch = (url: string, batch: SentBatch) =>
  fetch(`${url}/v1/outcomes/reconcile`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": batch.key },
    body: JSON.stringify(batchBody(batch)),
    signal: AbortSignal.timeout(30_000),
  });

describe.each([
  ["SQLite", true, () => sqliteLocation("sds-sync-reconcile-kill-")],
  ["PostgreSQL", available, () => postgresLocation("sds_sync_reconcile_kill")],
] as const)("a SIGKILL while reconciling on %s", (_name, enabled, createLocation) => {
  const processes: ServiceProcess[] = [];
  let api: FakeSupplierApi | undefined;
  let location: DatabaseLocation | undefined;
  afterEach(async () => {
    for (const each of processes.splice(0))
      if (each.child.exitCode === null && each.child.signalCode === null) each.child.kill("SIGKILL");
    await api?.close();
    await location?.cleanup();
  });

  it.skipIf(!enabled)(
    "keeps every acknowledged batch whole, each cut-off batch whole or absent, and applies a cut-off batch once when sent again with its key",
    async () => {
      api = loopFake([loopSurvey(SURVEY, { Cpi: CPI.toFixed(2) })]);
      const fake = await api.listen();
      location = createLocation();
      const start = async () => {
        const service = spawnService({
          SDS_BASE_URL: fake.baseUrl,
          SDS_API_KEY: DEFAULT_API_KEY,
          DATABASE_URL: location?.url ?? "",
          SYNC_INTERVAL: "3600",
        });
        processes.push(service);
        return { service, url: await service.url };
      };
      let { service, url } = await start();

      // Every token issued and completed by the marketplace.
      const groups = Array.from({ length: SENDERS }, (_, group) =>
        Array.from({ length: TOKENS_PER_GROUP }, (_, index) => `rk-${group}-${index}`),
      );
      const entry = (token: string) =>
        fetch(`${url}/v1/entry-links`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ surveyId: SURVEY, token, uid: `uid-${token}` }),
        });
      await waitFor(async () => (await entry("rk-0-0")).status === 201, 30_000);
      for (const token of groups.flat()) {
        expect([200, 201]).toContain((await entry(token)).status);
        expect((await fetch(`${url}/v1/outcomes/complete?vq_token=${token}`)).status).toBe(200);
      }

      const batches: SentBatch[] = [];
      const log: string[] = [];
      for (const [round, killAfter] of KILL_AFTER_BATCHES.entries()) {
        let acknowledged = 0;
        const run = { killed: false };
        // Read through a call: after an await the kill may have come (the type checker would narrow a plain read).
        const killedNow = () => run.killed;
        let inFlight = 0;
        let reachKill = (): void => undefined;
        const killMoment = new Promise<void>((resolve) => (reachKill = resolve));
        const sender = async (group: number) => {
          for (let index = 0; !killedNow(); index += 1) {
            const batch: SentBatch = {
              key: `round-${round}-group-${group}-batch-${index}`,
              reason: `r${round}g${group}b${index}`,
              tokens: groups[group] ?? [],
              acknowledged: false,
            };
            batches.push(batch);
            inFlight += 1;
            try {
              const response = await sendBatch(url, batch);
              if (killedNow()) return;
              expect(response.status, await response.clone().text()).toBe(200);
              batch.acknowledged = true;
              if ((acknowledged += 1) >= killAfter) reachKill();
            } catch (error) {
              if (!killedNow()) throw error;
              return;
            } finally {
              inFlight -= 1;
            }
          }
        };
        const senders = Array.from({ length: SENDERS }, (_, group) => sender(group));
        await Promise.race([killMoment, Promise.all(senders)]);
        const inFlightAtKill = inFlight;
        run.killed = true;
        service.child.kill("SIGKILL");
        await Promise.allSettled(senders);
        expect((await service.exited).signal).toBe("SIGKILL");
        expect(inFlightAtKill, `round ${round}: batches in flight at the kill`).toBeGreaterThan(0);

        ({ service, url } = await start());
        const feed = await readOutcomeFeed(overHttp(url));
        const linesOf = new Map<string, number>();
        for (const record of feed)
          if (record.reason !== null) linesOf.set(record.reason, (linesOf.get(record.reason) ?? 0) + 1);
        const whole = 2 * TOKENS_PER_GROUP;
        let committedUnacknowledged = 0;
        for (const batch of batches) {
          const lines = linesOf.get(batch.reason) ?? 0;
          if (batch.acknowledged) expect(lines, `acknowledged ${batch.key}`).toBe(whole);
          else {
            expect([0, whole], `cut-off ${batch.key}: all or nothing`).toContain(lines);
            if (lines === whole) committedUnacknowledged += 1;
          }
        }
        // Sent again with its key, a cut-off batch is answered once: replayed when it had committed, recorded when not.
        for (const batch of batches.filter((each) => !each.acknowledged)) {
          const committed = (linesOf.get(batch.reason) ?? 0) === whole;
          const response = await sendBatch(url, batch);
          expect(response.status, await response.clone().text()).toBe(200);
          const answer = (await response.json()) as { replayed: boolean; changed: number };
          expect(answer, batch.key).toMatchObject({ replayed: committed, changed: whole });
          batch.acknowledged = true;
        }
        log.push(
          `round ${round}: ${acknowledged} batches acknowledged before the kill, ${inFlightAtKill} in flight, ${committedUnacknowledged} of them committed`,
        );
      }

      // Every batch exactly once, and the counts agree with a recount of the feed.
      const feed = await readOutcomeFeed(overHttp(url));
      for (const batch of batches)
        expect(
          feed.filter((record) => record.reason === batch.reason),
          batch.key,
        ).toHaveLength(2 * TOKENS_PER_GROUP);
      expect(feed.map((record) => record.sequence)).toEqual(feed.map((_, index) => index + 1));
      const entries = new Map(groups.flat().map((token) => [token, CPI]));
      const { earnings, ...counts } = lifetimeFromFeed(feed, entries);
      const figures = await readLoopFigures(overHttp(url));
      expect(figures.totals.lifetime).toMatchObject({ ...counts, reversals: batches.length * TOKENS_PER_GROUP });
      expect(figures.totals.lifetime.earnings).toBeCloseTo(earnings, 6);
      service.child.kill("SIGTERM");
      expect(await service.exited).toEqual({ code: 0, signal: null });
      console.info(`reconcile kill on ${_name}:\n  ${log.join("\n  ")}`);
    },
    240_000,
  );
});
