/**
 * The in-process cost of each step of respondent-aware routing, without HTTP, one request at a
 * time: where the server's time goes per match and per entry link (respondent-routing.bench.ts).
 */
import type { LoopContext } from "../src/loop/loop-context.ts";
import { MatchBody } from "@sds/sync-client";
import { toMatchRequest } from "../src/loop/match-routes.ts";

/** Mean milliseconds per step. */
export interface InProcessCosts {
  /** `respondentHistory` (one indexed read of the loop store). */
  readonly historyReadMs: number;
  readonly meanHistoryEntries: number;
  /** Parse, validate and match one body with its history. */
  readonly matchMs: number;
  readonly meanEligible: number;
  /** The rules of one entry link: the matcher's explain of one survey for the respondent. */
  readonly rulesMs: number;
  /** `recordEntry` with an admission that admits: the lock, the history read, the insert and the counts in one transaction. */
  readonly recordEntryMs: number;
}

/** Measures each step over `rounds` requests (entries: a fifth of them), drawing uids, bodies and surveys in turn. */
export async function measureInProcess(
  loop: LoopContext,
  pools: { profiles: readonly string[]; uids: readonly string[]; surveyIds: readonly number[] },
  rounds = 2000,
): Promise<InProcessCosts> {
  const { matcher } = loop.liveMatcher;
  const at = (items: readonly string[] | readonly number[], index: number) => items[(index * 7919) % items.length];
  let historyMs = 0;
  let historyEntries = 0;
  let matchMs = 0;
  let eligible = 0;
  let rulesMs = 0;
  for (let index = 0; index < rounds; index++) {
    const uid = String(at(pools.uids, index));
    const t0 = performance.now();
    const now = new Date();
    const history = await loop.store.respondentHistory(uid, now);
    const t1 = performance.now();
    const body = `${String(at(pools.profiles, index)).slice(0, -1)},"uid":${JSON.stringify(uid)}}`;
    const result = matcher.match(toMatchRequest(MatchBody.parse(JSON.parse(body)), now, history));
    const t2 = performance.now();
    const surveyId = Number(at(pools.surveyIds, index));
    const respondent = { uid, history: history.entries, last24h: history.last24h };
    matcher.explain(surveyId, { answers: {}, now: now.getTime(), respondent });
    const t3 = performance.now();
    historyMs += t1 - t0;
    historyEntries += history.entries.length;
    matchMs += t2 - t1;
    eligible += result.eligible;
    rulesMs += t3 - t2;
  }
  const entries = Math.max(1, Math.floor(rounds / 5));
  const started = performance.now();
  for (let index = 0; index < entries; index++) {
    await loop.store.recordEntry(
      {
        token: `in-process-${Date.now().toString(36)}-${index}`,
        surveyId: Number(at(pools.surveyIds, index)),
        uid: String(at(pools.uids, index)),
        cpi: 1,
        at: new Date(),
      },
      () => undefined,
    );
  }
  const recordEntryMs = (performance.now() - started) / entries;
  return {
    historyReadMs: historyMs / rounds,
    meanHistoryEntries: historyEntries / rounds,
    matchMs: matchMs / rounds,
    meanEligible: eligible / rounds,
    rulesMs: rulesMs / rounds,
    recordEntryMs,
  };
}
