import type { IncomingMessage } from "node:http";
import type { LoopContext } from "../loop/loop-context.ts";
import { loopStatus } from "../loop/loop-status.ts";
import type { SyncMetrics } from "../metrics/sync-metrics.ts";
import type { SyncStore } from "../store/store.ts";
import type { ChangeNotifier } from "../feed/change-notifier.ts";
import type { CycleResult } from "../cycle/cycle-result.ts";
import { ManualRunRefusedError, type SyncEngine } from "../engine/sync-engine.ts";
import { encodeCursor, parseChangesQuery, parseSurveyId, parseSurveyQuery } from "./params.ts";
import type { PageCache } from "../inventory-api/page-cache.ts";
import type { ChangePage, ClosuresConfirmed, Health, Readiness, RunAccepted } from "./api-schemas.ts";
import { errorReply, json, type Reply } from "./respond.ts";

/** What the routes read from. */
export interface RouteContext {
  readonly store: SyncStore;
  readonly engine: SyncEngine;
  readonly metrics: SyncMetrics;
  readonly notifier: ChangeNotifier;
  readonly intervalMs: number;
  /** True once shutdown began: readiness fails so load balancers drain this replica. */
  readonly isStopping: () => boolean;
  /** The respondent loop: matcher, account settings, outcome store. */
  readonly loop: LoopContext;
  /** Serialised pages of `GET /v1/surveys` for the current data version. */
  readonly pageCache: PageCache;
}

/** One request as the routes see it. */
export interface RouteRequest {
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  /** Aborts when the client goes away (ends a long-poll early). */
  readonly signal: AbortSignal;
  /** The request as received: its body, and its target unaltered (signatures are over it). */
  readonly incoming: IncomingMessage;
}

/** A route handler. */
export type Handler = (context: RouteContext, request: RouteRequest) => Promise<Reply>;

/** Readiness fails once the last success is older than this many intervals. */
export const STALE_AFTER_INTERVALS = 3;

/** `GET /healthz`: the process is alive. */
export const healthz: Handler = () => Promise.resolve(json(200, { status: "ok" } satisfies Health));

/** `GET /readyz`: a cycle succeeded (in the shared store) within the last three intervals. */
export const readyz: Handler = async (context) => {
  if (context.isStopping()) return json(503, { ready: false, reason: "shutting down" });
  const last = await context.store.lastSuccessfulRun();
  if (!last) return json(503, { ready: false, reason: "no successful sync cycle yet" });
  const ageSeconds = (Date.now() - last.finishedAt.getTime()) / 1000;
  const limitSeconds = (STALE_AFTER_INTERVALS * context.intervalMs) / 1000;
  // Held closures keep the replica ready (it serves the last good data, which is the point) but are said out loud.
  const body = { lastSuccessAt: last.finishedAt.toISOString(), ageSeconds: Math.round(ageSeconds), staleAfterSeconds: limitSeconds, closuresHeld: last.counts.closuresHeld ?? 0 };
  if (ageSeconds > limitSeconds) return json(503, { ready: false, reason: "stale: the last successful sync cycle is too old", ...body } satisfies Readiness);
  return json(200, { ready: true, ...body } satisfies Readiness);
};

/** `GET /metrics`: Prometheus text exposition. */
export const metrics: Handler = async (context) => ({ status: 200, body: await context.metrics.render(), contentType: context.metrics.registry.contentType });

/**
 * `GET /v1/surveys`: filtered, cursor-paginated surveys. `sequence` is the change feed's sequence
 * the page reflects at least (read before the page, so every change after it is still to come in
 * the feed): a consumer lists, then follows `/v1/changes?after=<sequence of the first page>`.
 */
export const listSurveys: Handler = async (context, request) => {
  const query = parseSurveyQuery(request.url.searchParams);
  // The data version (see page-cache.ts), read before the page: the page is at least this recent.
  const [sequence, lastRun] = await Promise.all([context.store.latestSequence(), context.store.lastSuccessfulRun()]);
  const headers = request.incoming.headers;
  const reply = await context.pageCache.reply(
    { version: `${sequence}.${lastRun?.id ?? 0}`, query: request.url.search, ifNoneMatch: headers["if-none-match"], acceptEncoding: headers["accept-encoding"] },
    async () => {
      const page = await context.store.listSurveys(query);
      return { surveys: page.surveys, nextCursor: page.hasMore && page.lastId !== null ? encodeCursor(page.lastId) : null, sequence };
    },
  );
  return { ...reply, headers: { ...reply.headers, "sds-sequence": String(sequence) } };
};

/** `GET /v1/surveys/:id`: one survey with its qualifications and quotas. */
export const getSurvey: Handler = async (context, request) => {
  const id = parseSurveyId(request.params.id ?? "");
  const survey = await context.store.getSurvey(id);
  return survey ? json(200, survey) : errorReply(404, "not_found", `survey ${id} is not in the store`);
};

/** `GET /v1/changes`: the change feed after a sequence number, long-polling with `wait`. */
export const listChanges: Handler = async (context, request) => {
  const query = parseChangesQuery(request.url.searchParams);
  let changes = await context.store.listChanges(query.after, query.limit);
  // The horizon is read after the changes: pruning only ever raises it, so a read it does not pass was complete.
  let expired = await feedExpired(context, query.after);
  if (expired) return expired;
  if (changes.length === 0 && query.waitSeconds > 0) {
    await context.notifier.waitForSequenceAbove(query.after, query.waitSeconds * 1000, request.signal);
    changes = await context.store.listChanges(query.after, query.limit);
    expired = await feedExpired(context, query.after);
    if (expired) return expired;
  }
  const next = changes.at(-1)?.sequence ?? query.after;
  return json(200, { changes, next, hasMore: changes.length === query.limit } satisfies ChangePage);
};

/** 410 `feed_expired` when changes after `after` were pruned (`SYNC_RETENTION_SECONDS`), with the way to resync. */
async function feedExpired(context: RouteContext, after: number): Promise<Reply | undefined> {
  const horizon = await context.store.feedHorizon();
  if (after >= horizon) return undefined;
  return errorReply(
    410,
    "feed_expired",
    `changes after sequence ${after} are no longer kept: the feed now starts after sequence ${horizon} (older entries are pruned, see SYNC_RETENTION_SECONDS). ` +
      "Resync: list the surveys (GET /v1/surveys, every page; each answer's sequence field is the feed sequence it reflects), " +
      "then follow GET /v1/changes?after=<the sequence of the first page>.",
  );
}

/** `GET /v1/sync/status`: this replica, store counts, recent cycles, collections and quarantine. */
export const syncStatus: Handler = async (context) => {
  const [runs, stats, collections, quarantine, loop, languages] = await Promise.all([
    context.store.listRuns(20),
    context.store.stats(),
    context.store.listCollections(),
    context.store.listQuarantine(20),
    loopStatus(context.loop),
    context.store.countByLanguage(),
  ]);
  const engine = context.engine.status();
  return json(200, {
    replica: { id: engine.replicaId, leader: engine.leader, running: engine.running, consecutiveFailures: engine.consecutiveFailures, nextRunAt: engine.nextRunAt },
    closures: engine.closures,
    store: { kind: context.store.kind, ...stats },
    languages,
    intervalSeconds: context.intervalMs / 1000,
    runs: runs.map((run) => ({ ...run, startedAt: run.startedAt.toISOString(), finishedAt: run.finishedAt.toISOString() })),
    collections: collections.map(({ name, fetchedAt }) => ({ name, fetchedAt })),
    quarantine: quarantine.map(({ key, surveyId, source, timesSeen, firstSeenAt, lastSeenAt, issues }) => ({ key, surveyId, source, timesSeen, firstSeenAt, lastSeenAt, issues })),
    loop,
  });
};

/** `POST /v1/sync/closures/confirm`: an operator confirms the closures the mass-closure guard holds; the next cycle applies them. */
export const confirmClosures: Handler = (context) => {
  const confirmed = context.engine.confirmClosures();
  return Promise.resolve(json(202, { confirmed, appliedAt: "the next cycle, for the surveys still absent then" } satisfies ClosuresConfirmed));
};

/** `GET /v1/collections`: the stored reference collections. */
export const listCollections: Handler = async (context) => json(200, { collections: await context.store.listCollections() });

/** `POST /v1/sync/run`: run a cycle now (or `?wait=false` to only ask for one). */
export const runSync: Handler = async (context, request) => {
  const wait = request.url.searchParams.get("wait");
  if (wait !== null && wait !== "true" && wait !== "false") return errorReply(400, "bad_request", `wait: must be true or false, got ${JSON.stringify(wait)}`);
  let cycle: Promise<CycleResult>;
  try {
    cycle = context.engine.runNow();
  } catch (error) {
    if (!(error instanceof ManualRunRefusedError)) throw error;
    return errorReply(429, "too_many_runs", error.message, { "retry-after": String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))) });
  }
  if (wait === "false") {
    cycle.catch(() => undefined); // the outcome is logged and recorded by the engine
    return json(202, { accepted: true } satisfies RunAccepted);
  }
  const result = await cycle;
  return json(result.status === "succeeded" ? 200 : 502, { run: describeCycle(result) });
};

/** A cycle result as JSON. */
export function describeCycle(result: CycleResult): Record<string, unknown> {
  return {
    id: result.runId ?? null,
    status: result.status,
    startedAt: result.startedAt.toISOString(),
    finishedAt: result.finishedAt.toISOString(),
    durationMs: result.finishedAt.getTime() - result.startedAt.getTime(),
    counts: result.counts,
    error: result.error,
    firstSequence: result.firstSequence,
    lastSequence: result.lastSequence,
  };
}
