import {
  ClosuresConfirmed,
  CycleRun,
  RunAccepted,
  STATUS_LIMITS,
  SyncStatus,
  type ErrorBody,
  type LoopStatus,
} from "@sds/sync-client";
import { z } from "zod";
import type { CycleResult } from "../cycle/cycle-result.ts";
import type { SyncEngine } from "../engine/sync-engine.ts";
import { errorReply, json } from "../http/respond.ts";
import { guarded } from "../http/route-doc.ts";
import { defineRoutes, type RouteModule, type RouteRequest } from "../http/route-module.ts";
import type { LeaderIdentity, SyncStore } from "../inventory-store/store.ts";

/** What the operator routes read and drive. */
export interface OperatorContext {
  readonly store: Pick<
    SyncStore,
    "kind" | "listRuns" | "stats" | "listCollections" | "listQuarantine" | "countByLanguage"
  >;
  readonly engine: Pick<SyncEngine, "status" | "runNow" | "confirmClosures">;
  readonly intervalMs: number;
  /** The respondent loop's section of `/v1/sync/status` (the loop reports on itself). */
  readonly loopStatus: () => Promise<LoopStatus>;
  /** Which replica leads, asked on a follower (`undefined`: not known). */
  readonly leader?: () => Promise<LeaderIdentity | undefined>;
  /** `SYNC_CURRENCY`: the currency of the surveys' CPI, for the status page. @default "USD" */
  readonly currency?: string;
}

/** The operator's routes: the status of the replica and its store, a manual run, and confirming held closures. */
export function operatorRoutes(context: OperatorContext): RouteModule {
  return defineRoutes({
    schemas: { SyncStatus, CycleRun, RunAccepted, ClosuresConfirmed },
    routes: {
      syncStatus: {
        method: "GET",
        path: "/v1/sync/status",
        access: "operator",
        handler: () => syncStatus(context),
        doc: {
          summary: "This replica, store counts, recent cycles, collections, quarantine and the respondent loop",
          success: { "200": "SyncStatus" },
          errors: [...guarded, "503"],
        },
      },
      runSync: {
        method: "POST",
        path: "/v1/sync/run",
        access: "operator",
        handler: (request) => runSync(context, request),
        doc: {
          summary: "Run a sync cycle now (502 with the run when it failed)",
          parameters: [
            {
              name: "wait",
              in: "query",
              description: "false: only ask for a cycle (202).",
              schema: z.enum(["true", "false"]).default("true"),
            },
          ],
          success: { "200": "CycleRun", "202": "RunAccepted", "502": "CycleRun" },
          errors: ["400", ...guarded, "409", "429", "503"],
        },
      },
      confirmClosures: {
        method: "POST",
        path: "/v1/sync/closures/confirm",
        access: "operator",
        // An operator confirms the closures the mass-closure guard holds; the next cycle applies them.
        handler: () =>
          Promise.resolve(
            json(202, {
              confirmed: context.engine.confirmClosures(),
              appliedAt: "the next cycle, for the surveys still absent then",
            } satisfies ClosuresConfirmed),
          ),
        doc: {
          summary: "Confirm the closures the mass-closure guard holds (on the leader)",
          success: { "202": "ClosuresConfirmed" },
          errors: [...guarded, "409"],
        },
      },
    },
  });
}

/** `GET /v1/sync/status`: this replica, store counts, recent cycles, collections and quarantine. */
async function syncStatus(context: OperatorContext) {
  return json(200, await syncStatusReport(context));
}

/** The leader as a follower names it: `replica ID (at ADDRESS)`, or that it is not known. */
function describeLeader(leader: LeaderIdentity | undefined): string {
  if (leader === undefined) return "which replica leads is not known";
  return `replica ${leader.id}${leader.address === undefined ? "" : ` at ${leader.address}`} leads`;
}

/**
 * The body of `GET /v1/sync/status`, also server-rendered into the status page when the API is
 * open (no `SYNC_API_TOKEN`). On a follower, `replica.leaderId` (and `leaderAddress`, where known)
 * name the replica that leads.
 */
export async function syncStatusReport(context: OperatorContext): Promise<SyncStatus> {
  const [runs, stats, collections, quarantine, loop, languages] = await Promise.all([
    context.store.listRuns(STATUS_LIMITS.runs),
    context.store.stats(),
    context.store.listCollections(),
    context.store.listQuarantine(STATUS_LIMITS.quarantine),
    context.loopStatus(),
    context.store.countByLanguage(),
  ]);
  const engine = context.engine.status();
  const leader = engine.leader ? undefined : await context.leader?.().catch(() => undefined);
  return {
    replica: {
      id: engine.replicaId,
      leader: engine.leader,
      running: engine.running,
      consecutiveFailures: engine.consecutiveFailures,
      nextRunAt: engine.nextRunAt,
      ...(leader === undefined
        ? {}
        : { leaderId: leader.id, ...(leader.address === undefined ? {} : { leaderAddress: leader.address }) }),
    },
    currency: context.currency ?? "USD",
    closures: engine.closures && { ...engine.closures, sample: [...engine.closures.sample] },
    store: { kind: context.store.kind, ...stats },
    languages,
    intervalSeconds: context.intervalMs / 1000,
    runs: runs.map((run) => ({
      ...run,
      counts: { ...run.counts },
      startedAt: run.startedAt.toISOString(),
      finishedAt: run.finishedAt.toISOString(),
    })),
    collections: collections.map(({ name, fetchedAt }) => ({ name, fetchedAt })),
    quarantine: quarantine.map(({ key, surveyId, source, timesSeen, firstSeenAt, lastSeenAt, issues }) => ({
      key,
      surveyId,
      source,
      timesSeen,
      firstSeenAt,
      lastSeenAt,
      issues,
    })),
    loop,
  } satisfies SyncStatus;
}

/** `POST /v1/sync/run`: run a cycle now (or `?wait=false` to only ask for one). */
async function runSync(context: OperatorContext, request: RouteRequest) {
  const wait = request.url.searchParams.get("wait");
  if (wait !== null && wait !== "true" && wait !== "false")
    return errorReply(400, "bad_request", `wait: must be true or false, got ${JSON.stringify(wait)}`);
  // Only the leader runs cycles: a follower says which replica to ask instead.
  if (!context.engine.status().leader) {
    const leader = await context.leader?.().catch(() => undefined);
    return json(409, {
      error: {
        code: "not_leader",
        message: `this replica does not lead and runs no cycle; ${describeLeader(leader)}: send POST /v1/sync/run there`,
        ...(leader === undefined ? {} : { leaderId: leader.id }),
        ...(leader?.address === undefined ? {} : { leaderAddress: leader.address }),
      },
    } satisfies ErrorBody);
  }
  // A refused run (ManualRunRefusedError) carries its own answer: 429 with Retry-After.
  const cycle = context.engine.runNow();
  if (wait === "false") {
    cycle.catch(() => undefined); // the outcome is logged and recorded by the engine
    return json(202, { accepted: true } satisfies RunAccepted);
  }
  const result = await cycle;
  return json(result.status === "succeeded" ? 200 : 502, { run: describeCycle(result) });
}

/** A cycle result as JSON. */
export function describeCycle(result: CycleResult): CycleRun["run"] {
  return {
    id: result.runId ?? null,
    status: result.status,
    startedAt: result.startedAt.toISOString(),
    finishedAt: result.finishedAt.toISOString(),
    durationMs: result.finishedAt.getTime() - result.startedAt.getTime(),
    counts: { ...result.counts },
    error: result.error,
    firstSequence: result.firstSequence,
    lastSequence: result.lastSequence,
  };
}
