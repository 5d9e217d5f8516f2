import {
  createFakeSupplierApi,
  createSeededRandom,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeServer,
  type FakeSupplierApi,
  type SeededRandom,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { ConversionWindowReport } from "../src/loop/loop-status.ts";
import type { OutcomeKind, OutcomeRecord } from "../src/loop/store/loop-store.ts";
import { postgresLocation, sqliteLocation, type DatabaseLocation } from "./database-location.ts";
import { waitFor } from "./harness.ts";
import { lifetimeFromFeed, readLoopFigures, readOutcomeFeed, unsignedOutcomes } from "./loop-traffic.ts";
import { postgresAvailable } from "./postgres.ts";
import type { ServiceHarness } from "./service-harness.ts";
import { spawnService, type ServiceProcess } from "./subprocess.ts";

/*
 * SIGKILL in the middle of a flood on the respondent loop, on both stores. A supplier is paid
 * for what the store holds, so every write sds-sync acknowledged (201 for an entry link, 200 for
 * an S2S outcome call) must survive the kill exactly once, and the counts the status reports
 * must agree with the records. The SQLite store acknowledges writes through a group commit (one
 * transaction and one fsync for the writes of one event-loop turn) and PostgreSQL records an
 * entry in a few folded statements: this is where an acknowledgement given before its commit,
 * or a count moved without its record, would show.
 */

const available = await postgresAvailable();
/** The seed of the flood's choices (surveys, outcomes, duplicates); set SDS_LOOP_KILL_SEED to replay. */
const seed = Number(process.env.SDS_LOOP_KILL_SEED ?? 20_260_611);
/**
 * Acknowledged outcome calls before each round's SIGKILL: the kill comes once the flood has
 * written (entry links and outcomes), however fast this machine runs it, never at a fixed time.
 */
const KILL_AFTER_OUTCOMES = [25, 100, 250] as const;
const WORKERS = 30;
/** Share of acknowledged entries whose outcome the marketplace reports at once. */
const OUTCOME_SHARE = 0.5;
/** Share of those reported twice at once (a sender's duplicate delivery). */
const DUPLICATE_SHARE = 0.25;
/** Share of acknowledged outcomes changed afterwards (a reversal, or a terminate turned complete). */
const CHANGE_SHARE = 0.2;
const OUTCOMES: readonly OutcomeKind[] = ["complete", "terminate", "overquota"];
/** How many problems, and the first few: a failure names what was lost without printing thousands of lines. */
const firstOf = (problems: readonly string[]) => ({ count: problems.length, first: problems.slice(0, 5) });

/** An entry link the test asked for: what it was asked with, and what sds-sync acknowledged (201), if it did. */
interface AskedLink {
  readonly token: string;
  readonly surveyId: number;
  readonly uid: string;
  readonly round: number;
  acknowledged?: { readonly link: string; readonly issuedAt: string };
}

/** An S2S outcome call sds-sync acknowledged (200), with the record it answered with. */
interface OutcomeAcknowledgement {
  readonly token: string;
  readonly outcome: OutcomeKind;
  readonly recorded: boolean;
  readonly record: OutcomeRecord;
}

/** Everything asked for and acknowledged over the whole campaign (all rounds), to be found in the store. */
interface Campaign {
  readonly links: Map<string, AskedLink>;
  /** Every outcome call sent per token, acknowledged or not. */
  readonly outcomeCalls: Map<string, Set<OutcomeKind>>;
  readonly outcomeAcks: OutcomeAcknowledgement[];
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** The loop-traffic helpers against a spawned sds-sync (they call nothing but `request`). */
const overHttp = (url: string): ServiceHarness =>
  ({ request: (path: string, init?: RequestInit) => fetch(`${url}${path}`, init) }) as Pick<
    ServiceHarness,
    "request"
  > as ServiceHarness;

const postEntryLink = (url: string, link: Pick<AskedLink, "token" | "surveyId" | "uid">) =>
  fetch(`${url}/v1/entry-links`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ surveyId: link.surveyId, token: link.token, uid: link.uid }),
    signal: AbortSignal.timeout(15_000),
  });

/** The marketplace's S2S call; the receiver is on the main listener (SYNC_OUTCOMES_PORT unset). */
const sendOutcome = (url: string, outcome: OutcomeKind, token: string) =>
  fetch(`${url}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`, { signal: AbortSignal.timeout(15_000) });

/** Runs `work` over `items` with `concurrency` at once. */
async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

interface FloodReport {
  readonly linksAcknowledged: number;
  readonly outcomesAcknowledged: number;
  readonly inFlightAtKill: number;
  readonly cutByKill: number;
}

/**
 * WORKERS clients issue entry links for fresh tokens (a respondent each) and report outcomes for a
 * share of the acknowledged ones, until `service` is killed once `killAfterOutcomes` outcome calls
 * were acknowledged. What was answered before the kill must be an acknowledgement; requests the
 * kill cut off are not.
 */
async function floodAndKill(
  service: ServiceProcess,
  url: string,
  campaign: Campaign,
  surveys: readonly number[],
  random: SeededRandom,
  round: number,
  killAfterOutcomes: number,
): Promise<FloodReport> {
  let killed = false;
  let inFlight = 0;
  let cutByKill = 0;
  let linksAcknowledged = 0;
  let outcomesAcknowledged = 0;
  const unexpected: string[] = [];
  /** Resolves once enough outcomes were acknowledged, or at the first unexpected answer (then the test fails on it). */
  let progressed = (): void => undefined;
  const killMoment = new Promise<void>((resolve) => {
    progressed = () => {
      if (outcomesAcknowledged >= killAfterOutcomes || unexpected.length > 0) resolve();
    };
  });
  /** The answer, read to its end, or undefined when the request failed (only the kill may make it fail). */
  const exchange = async (what: string, send: () => Promise<Response>): Promise<Answer | undefined> => {
    inFlight += 1;
    try {
      const response = await send();
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    } catch (error) {
      if (killed) cutByKill += 1;
      else unexpected.push(`${what}: ${(error as Error).message}`);
      progressed();
      return undefined;
    } finally {
      inFlight -= 1;
    }
  };
  const deliver = async (token: string, outcome: OutcomeKind): Promise<boolean> => {
    const calls = campaign.outcomeCalls.get(token) ?? new Set();
    campaign.outcomeCalls.set(token, calls.add(outcome));
    const answer = await exchange(`${outcome} of ${token}`, () => sendOutcome(url, outcome, token));
    if (answer === undefined) return false;
    if (answer.status !== 200) {
      unexpected.push(`${outcome} of ${token}: ${answer.status} ${JSON.stringify(answer.body)}`);
      progressed();
      return false;
    }
    const { recorded, outcome: record } = answer.body as { recorded: boolean; outcome: OutcomeRecord };
    campaign.outcomeAcks.push({ token, outcome, recorded, record });
    outcomesAcknowledged += 1;
    progressed();
    return true;
  };
  const worker = async (index: number) => {
    for (let n = 0; !killed; n += 1) {
      const token = `kill-${seed}-r${round}-w${index}-${n}`;
      const asked: AskedLink = { token, surveyId: random.pick(surveys), uid: `uid-${token}`, round };
      campaign.links.set(token, asked);
      const answer = await exchange(`entry link ${token}`, () => postEntryLink(url, asked));
      if (answer === undefined) continue;
      if (answer.status !== 201) {
        unexpected.push(`entry link ${token}: ${answer.status} ${JSON.stringify(answer.body)}`);
        progressed();
        continue;
      }
      asked.acknowledged = { link: String(answer.body.link), issuedAt: String(answer.body.issuedAt) };
      linksAcknowledged += 1;
      if (!random.chance(OUTCOME_SHARE)) continue;
      const first = random.pick(OUTCOMES);
      const copies = random.chance(DUPLICATE_SHARE) ? 2 : 1;
      const delivered = await Promise.all(Array.from({ length: copies }, () => deliver(token, first)));
      if (delivered.some(Boolean) && random.chance(CHANGE_SHARE))
        await deliver(token, random.pick(OUTCOMES.filter((kind) => kind !== first)));
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));
  // Or as soon as the service exits by itself: then the kill finds no process, and the checks below say so.
  await Promise.race([killMoment, service.exited]);
  service.child.kill("SIGKILL");
  const inFlightAtKill = inFlight;
  killed = true;
  await Promise.all(workers);
  expect((await service.exited).signal).toBe("SIGKILL");
  expect(unexpected, "every answer before the kill is an acknowledgement").toEqual([]);
  return { linksAcknowledged, outcomesAcknowledged, inFlightAtKill, cutByKill };
}

describe.each([
  ["SQLite", true, () => sqliteLocation("sds-sync-loop-kill-")],
  ["PostgreSQL", available, () => postgresLocation("sds_sync_loop_kill")],
] as const)("a SIGKILL in a flood of the respondent loop on %s", (name, enabled, createLocation) => {
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
    });
    processes.push(service);
    return { service, url: await service.url };
  };

  /**
   * Waits until the matcher holds every survey (an entry link answers rather than 404, 503
   * before the account is read, or 409 survey_unroutable before the routing data is read) and
   * gives back those it issues links to anyone for. The probes'
   * entries are entries like any other.
   */
  async function probe(url: string, campaign: Campaign, round: number, surveys: readonly number[]) {
    const issuing: number[] = [];
    for (const surveyId of surveys) {
      let attempt = 0;
      await waitFor(async () => {
        const token = `kill-${seed}-probe${round}-${surveyId}-${(attempt += 1)}`;
        const asked: AskedLink = { token, surveyId, uid: `uid-${token}`, round };
        const response = await postEntryLink(url, asked);
        const body = (await response.json()) as Record<string, unknown>;
        if (response.status === 404 || response.status === 503) return false;
        // Held out until its groups or the study types are read (the refresh after the start-up cycle).
        if ((body.error as { code?: string } | undefined)?.code === "survey_unroutable") return false;
        if (response.status === 201) {
          campaign.links.set(token, {
            ...asked,
            acknowledged: { link: String(body.link), issuedAt: String(body.issuedAt) },
          });
          issuing.push(surveyId);
        } else {
          // A survey whose links cannot be built, or a re-contact study open to its own list of respondents only.
          expect([422, 409], JSON.stringify(body)).toContain(response.status);
        }
        return true;
      }, 30_000);
    }
    return issuing;
  }

  /**
   * Reads everything back through the API of a restarted sds-sync: each acknowledged link is an
   * entry (its retry answers 200 with the same link), each acknowledged outcome is in the feed
   * once, the feed is gapless, and the status counts agree with the records.
   */
  async function expectStoreHoldsEveryAcknowledgement(url: string, campaign: Campaign) {
    // Every link asked for, acknowledged or not, asked again. An acknowledged one must be there already
    // (200 existing, the same link); one the kill cut off may have been committed (200) or not (201, now it is).
    const retried: string[] = [];
    let committedUnacknowledged = 0;
    await inParallel([...campaign.links.values()], WORKERS, async (asked) => {
      const response = await postEntryLink(url, asked);
      const body = (await response.json()) as Record<string, unknown>;
      if (asked.acknowledged) {
        if (response.status !== 200 || body.link !== asked.acknowledged.link)
          retried.push(`${asked.token} (acknowledged in round ${asked.round}): retry answered ${response.status}`);
        else expect(body.issuedAt).toBe(asked.acknowledged.issuedAt);
        return;
      }
      expect([200, 201], `${asked.token}: ${JSON.stringify(body)}`).toContain(response.status);
      if (response.status === 200) committedUnacknowledged += 1;
      asked.acknowledged = { link: String(body.link), issuedAt: String(body.issuedAt) };
    });
    expect(
      firstOf(retried),
      "acknowledged entry links lost (a retry answered other than 200 with the same link)",
    ).toEqual(firstOf([]));

    const feed = await readOutcomeFeed(overHttp(url));
    expect(
      feed.map((record) => record.sequence),
      "feed sequences are 1..N",
    ).toEqual(feed.map((_, index) => index + 1));
    // Each record is an outcome the marketplace sent for an entry of the campaign, and each token's records chain
    // (previous outcome = the outcome before) with no transition twice.
    const byToken = new Map<string, OutcomeRecord[]>();
    for (const record of feed) {
      const asked = campaign.links.get(record.token);
      expect(asked, `feed record ${record.sequence} for a token never issued`).toBeDefined();
      expect(record.surveyId, `survey of ${record.token}`).toBe(asked?.surveyId);
      expect([...(campaign.outcomeCalls.get(record.token) ?? [])], `outcome of ${record.token}`).toContain(
        record.outcome,
      );
      const records = byToken.get(record.token) ?? [];
      expect(record.previousOutcome, `record ${record.sequence} follows the token's last`).toBe(
        records.at(-1)?.outcome ?? null,
      );
      byToken.set(record.token, [...records, record]);
    }
    for (const [token, records] of byToken) {
      const transitions = records.map((record) => `${record.previousOutcome ?? "none"}→${record.outcome}`);
      expect(new Set(transitions).size, `${token}: ${transitions.join(", ")}`).toBe(transitions.length);
    }
    // Each acknowledged outcome is the feed's record at the sequence it was acknowledged with.
    const lost: string[] = [];
    for (const ack of campaign.outcomeAcks) {
      const stored = feed[ack.record.sequence - 1];
      if (
        stored?.token !== ack.token ||
        stored.outcome !== ack.outcome ||
        stored.previousOutcome !== ack.record.previousOutcome
      )
        lost.push(`${ack.outcome} of ${ack.token} at ${ack.record.sequence}: stored ${JSON.stringify(stored)}`);
    }
    expect(firstOf(lost), "acknowledged outcomes not in the feed as acknowledged").toEqual(firstOf([]));
    const recordedAt = campaign.outcomeAcks.filter((ack) => ack.recorded).map((ack) => ack.record.sequence);
    expect(new Set(recordedAt).size, "one sequence per recorded outcome").toBe(recordedAt.length);

    // The counts the status reports agree with the records: in total, per survey and per window.
    const cpi = new Map(
      [...new Set([...campaign.links.values()].map((asked) => asked.surveyId))].map((surveyId) => [
        surveyId,
        Number(api.getSurvey(surveyId)?.survey.Cpi),
      ]),
    );
    const figures = await readLoopFigures(overHttp(url));
    expect(figures.orphans.tokens).toBe(0);
    const byOutcome = { complete: 0, terminate: 0, overquota: 0, security: 0 };
    for (const record of feed) byOutcome[record.outcome] += 1;
    expect(figures.outcomes, "outcome counters").toEqual(byOutcome);
    const expectLifetime = (report: ConversionWindowReport, links: readonly AskedLink[], what: string) => {
      const entries = new Map(links.map((asked) => [asked.token, cpi.get(asked.surveyId) ?? Number.NaN]));
      const { earnings, ...counts } = lifetimeFromFeed(feed, entries);
      expect(report, what).toMatchObject(counts);
      expect(report.earnings, `${what}: earnings`).toBeCloseTo(earnings, 6);
    };
    const allLinks = [...campaign.links.values()];
    expectLifetime(figures.totals.lifetime, allLinks, "lifetime totals");
    expectLifetime(figures.totals.last24h, allLinks, "last 24 hours");
    expectLifetime(figures.totals.last7d, allLinks, "last 7 days");
    const perSurvey = figures.surveys as { surveyId: number; lifetime: ConversionWindowReport }[];
    expect(perSurvey.map((survey) => survey.surveyId).sort((a, b) => a - b)).toEqual(
      [...cpi.keys()].sort((a, b) => a - b),
    );
    for (const survey of perSurvey)
      expectLifetime(
        survey.lifetime,
        allLinks.filter((asked) => asked.surveyId === survey.surveyId),
        `survey ${survey.surveyId}`,
      );
    return { feed: feed.length, committedUnacknowledged };
  }

  it.skipIf(!enabled)(
    `keeps every acknowledged entry link and outcome exactly once through ${KILL_AFTER_OUTCOMES.length} kills mid-flood, with counts that agree with the records`,
    async () => {
      const random = createSeededRandom(seed + (name === "SQLite" ? 0 : 1));
      api = createFakeSupplierApi({
        seed,
        suppliers: [
          {
            supplierId: DEFAULT_SUPPLIER_ID,
            apiKey: DEFAULT_API_KEY,
            surveys: 20,
            account: { OutgoingEncryption: unsignedOutcomes },
          },
        ],
      });
      fake = await api.listen();
      location = createLocation();
      const campaign: Campaign = { links: new Map(), outcomeCalls: new Map(), outcomeAcks: [] };
      const live = api.listSurveys(DEFAULT_SUPPLIER_ID, "live").map((survey) => survey.SurveyId);
      expect(live.length).toBeGreaterThanOrEqual(20);

      let { service, url } = await start();
      const surveys = await probe(url, campaign, 0, live);
      expect(surveys.length, "surveys sds-sync issues entry links for").toBeGreaterThanOrEqual(10);
      const log: string[] = [];
      for (const [index, killAfterOutcomes] of KILL_AFTER_OUTCOMES.entries()) {
        const round = index + 1;
        const flood = await floodAndKill(service, url, campaign, surveys, random, round, killAfterOutcomes);
        // A flood that acknowledged nothing, or a kill that cut nothing off, proves nothing.
        expect(flood.linksAcknowledged, `round ${round}: entry links acknowledged`).toBeGreaterThan(0);
        expect(flood.outcomesAcknowledged, `round ${round}: outcomes acknowledged`).toBeGreaterThan(0);
        expect(flood.inFlightAtKill, `round ${round}: requests in flight at the kill`).toBeGreaterThan(0);

        ({ service, url } = await start());
        await probe(url, campaign, round, surveys);
        const read = await expectStoreHoldsEveryAcknowledgement(url, campaign);
        log.push(
          `round ${round} (kill after ${killAfterOutcomes} outcomes): ${flood.linksAcknowledged} links and ${flood.outcomesAcknowledged} outcomes acknowledged, ` +
            `${flood.inFlightAtKill} in flight at the kill, ${flood.cutByKill} cut off, ${read.committedUnacknowledged} committed unacknowledged; feed ${read.feed}`,
        );
      }
      service.child.kill("SIGTERM");
      expect(await service.exited).toEqual({ code: 0, signal: null });
      console.info(`loop kill on ${name} (seed ${seed}):\n  ${log.join("\n  ")}`);
    },
    180_000,
  );
});
