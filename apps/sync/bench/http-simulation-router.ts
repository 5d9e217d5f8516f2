import type { SimulatedOutcome, SimulatedRespondent, SimulationRouter } from "@sds/testing";
import type { SyncService } from "../src/service.ts";

/** Options of {@link httpSimulationRouter}. */
export interface HttpSimulationRouterOptions {
  /** The ranking `POST /v1/match` is asked for. */
  readonly order: "earnings" | "yield";
  /**
   * Reload the yield counts from the store before every N-th respondent (see {@link reloadYieldCounts}):
   * the pace of the replica's own 2 s reload at a given arrival rate. 0 leaves it to the service's timer.
   */
  readonly reloadEvery: number;
}

/** What the router did, beside the simulation's own totals. */
export interface HttpRouterTally {
  reloads: number;
  requests: number;
}

async function postJson(url: string, body: unknown, expected: readonly number[]): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!expected.includes(response.status))
    throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/**
 * What the replica's 2 s timer does for the yield counts (start-loop.ts `followRoutingFacts`):
 * read the per-survey counts from the store and hand them to the matcher. Called on the bench's
 * pace, so that learning keeps the cadence of real traffic however fast the bench runs.
 */
export async function reloadYieldCounts(service: SyncService): Promise<void> {
  const { loop } = service;
  loop.facts.update(loop.liveMatcher.matcher, undefined, await loop.store.yieldCounts());
}

/**
 * The simulation's router over sds-sync's HTTP API: `match` is `POST /v1/match` (the respondent's
 * answers, language, device and uid, the order, limit 1), `enter` is `POST /v1/entry-links`, and
 * `report` is the marketplace's S2S call `GET /v1/outcomes/{outcome}?vq_token=…` on the
 * receiver's listener.
 */
export function httpSimulationRouter(
  service: SyncService,
  options: HttpSimulationRouterOptions,
): { router: SimulationRouter; tally: HttpRouterTally } {
  const tally: HttpRouterTally = { reloads: 0, requests: 0 };
  let arrived = 0;
  const router: SimulationRouter = {
    async match(respondent: SimulatedRespondent) {
      arrived += 1;
      if (options.reloadEvery > 0 && arrived % options.reloadEvery === 0) {
        await reloadYieldCounts(service);
        tally.reloads += 1;
      }
      tally.requests += 1;
      const body = {
        answers: respondent.answers,
        languageId: respondent.languageId,
        device: respondent.device,
        uid: respondent.id,
        order: options.order,
        limit: 1,
      };
      const answer = (await postJson(`${service.url}/v1/match`, body, [200])) as { surveys: { SurveyId: number }[] };
      return answer.surveys[0]?.SurveyId;
    },
    async enter(surveyId: number, respondent: SimulatedRespondent) {
      tally.requests += 1;
      const token = `${options.order}-${respondent.id}`;
      const entry = (await postJson(
        `${service.url}/v1/entry-links`,
        { surveyId, token, uid: respondent.id },
        [201],
      )) as { link: string };
      return { token, link: entry.link };
    },
    async report(token: string, outcome: SimulatedOutcome) {
      tally.requests += 1;
      const response = await fetch(
        `${service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`,
      );
      if (response.status !== 200)
        throw new Error(
          `GET /v1/outcomes/${outcome} answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
        );
      await response.body?.cancel();
    },
  };
  return { router, tally };
}
