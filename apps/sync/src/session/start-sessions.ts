import type { StoredLanguages } from "../inventory-store/stored-languages.ts";
import { createClient } from "@sds/client";
import { SessionInventory } from "@sds/routing";
import type { Logger } from "pino";
import { Gauge, type Registry } from "prom-client";
import type { CycleEvents } from "../loop/inventory-reader.ts";
import type { InventoryFollower } from "../loop/live-matcher.ts";
import type { LoopContext } from "../loop/loop-context.ts";
import type { ProfileAccess } from "../loop/match-routes.ts";
import type { RouteModule } from "../http/route-module.ts";
import type { SessionRetention } from "../retention/pruner.ts";
import type { FetchFunction } from "../upstream/counting-fetch.ts";
import type { OperationPaths } from "../upstream/operation-paths.ts";
import { every, sweepDrops } from "./drop-sweeper.ts";
import { QuestionCatalogue } from "./question-catalogue.ts";
import { pruneSessions } from "./session-records.ts";
import { readProfile, storeAnswers } from "./profile-records.ts";
import { sessionRoutes } from "./session-routes.ts";
import type { SessionConfig } from "./session-settings.ts";
import type { GateConfig } from "../gate/gate-settings.ts";
import { pruneGateRecords, refusalCounts } from "../gate/gate-records.ts";
import { createQualityGate } from "../gate/start-gate.ts";
import type { GateCode } from "@sds/sync-client";
import { Sessions } from "./sessions.ts";

/** An answer a match gives again, unchanged, is written again (its time moved on) once it is this old. */
const PROFILE_REFRESH_MS = 86_400_000;

/** The settings the sessions start with: their own rows, and those of the service they read. */
export interface SessionStartConfig extends SessionConfig, GateConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly operationPaths?: OperationPaths | undefined;
  readonly yieldPriorStrength?: number | undefined;
}

/** How often the background work runs, in ms (tests pass shorter ones). */
export interface SessionIntervals {
  /** Following the catalogue and the yield evidence the store holds. @default 2000 */
  readonly followMs?: number;
  /** Looking for drops. @default 30000 */
  readonly dropSweepMs?: number;
}

/** The sessions' inventory, kept alike with the loop's matcher: made before the loop starts, which feeds it. */
export function sessionInventory(config: Pick<SessionStartConfig, "yieldPriorStrength">): {
  readonly inventory: SessionInventory;
  readonly follower: InventoryFollower;
} {
  const inventory = new SessionInventory(
    config.yieldPriorStrength === undefined ? {} : { priorStrength: config.yieldPriorStrength },
  );
  return {
    inventory,
    follower: {
      surveyApplied: (survey, targeting) => {
        inventory.upsert(survey, targeting);
      },
      surveyRemoved: (surveyId) => {
        inventory.remove(surveyId);
      },
      reloaded: (live) => {
        inventory.retainOnly(live);
      },
    },
  };
}

/** The session's room of one replica. */
export interface SessionRoom {
  readonly routes: RouteModule;
  readonly sessions: Sessions;
  readonly catalogue: QuestionCatalogue;
  /** The quality gate's refusals so far, by code, all replicas together (the status page's). */
  gateRefusals(): Promise<Record<GateCode, number>>;
  /** What `/v1/match` reads and keeps of respondents' profiles. */
  readonly profiles: ProfileAccess;
  /** What the shared pruner (`src/retention/pruner.ts`) deletes of the sessions, and when. */
  readonly retention: SessionRetention;
  /** Runs the drop sweep now, as of `now` (tests move time on). @default the clock's time */
  sweepDrops(now?: Date): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the respondent sessions over a started loop: the question catalogue (read by the leader
 * after its cycles, followed by every replica), yield's evidence for the session's order, the
 * drop sweeper and the routes. Expired sessions are pruned by the shared pruner, through
 * {@link SessionRoom.retention}.
 */
export function startSessions(options: {
  readonly config: SessionStartConfig;
  readonly loop: LoopContext;
  readonly inventory: SessionInventory;
  readonly cycles: CycleEvents;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly fetch: FetchFunction;
  /** The stored Languages collection (the quality gate's geo rule). @default none stored */
  readonly languages?: StoredLanguages;
  readonly clock?: () => Date;
  readonly intervals?: SessionIntervals;
}): SessionRoom {
  const { config, loop, inventory, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const catalogue = new QuestionCatalogue(loop.store, logger);
  const client = createClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    paths: config.operationPaths,
    fetch: options.fetch,
    validation: "off",
    retry: 1,
  });
  const settings = {
    maxAttempts: config.sessionMaxAttempts ?? 3,
    ttlSeconds: config.sessionTtlSeconds ?? 3600,
    questionSeconds: config.questionSeconds ?? 8,
    profileTtlDays: config.profileTtlDays ?? 30,
  };
  const gate = createQualityGate({
    config,
    registry: options.registry,
    languages: options.languages ?? (() => Promise.resolve(new Map())),
  });
  const sessions = new Sessions({ loop, inventory, catalogue, settings, gate, clock });
  new Gauge({
    name: "sds_sync_questions_unavailable",
    help: "Catalogue questions (per language) whose QualificationDetailById answered 404 or could not be read: sessions do not ask them.",
    registers: [options.registry],
    collect() {
      this.set(catalogue.report().unavailable);
    },
  });
  const followFacts = async (): Promise<void> => {
    await catalogue.follow();
    for (const survey of inventory.values())
      inventory.setYieldEvidence(survey.surveyId, loop.facts.yieldEvidence(survey.surveyId));
  };
  const abort = new AbortController();
  const state = { stopped: false };
  // Read through a function: the checks after an await must see a stop that came meanwhile.
  const isStopped = (): boolean => state.stopped;
  let refreshing: Promise<unknown> = Promise.resolve();
  const followCycles = async (): Promise<void> => {
    while (!state.stopped) {
      await options.cycles.nextCycle();
      if (isStopped()) return;
      // The matcher (which feeds the sessions' inventory) applies the cycle first; the questions its surveys use are read next.
      await loop.liveMatcher.refresh().catch(() => undefined);
      if (isStopped()) return;
      // Only the leader runs cycles: the catalogue is read once per replica set, the others follow it.
      const wanted = new Set<string>();
      for (const survey of inventory.values())
        for (const rule of survey.rules) wanted.add(`${survey.languageId}:${rule.qualificationId}`);
      refreshing = catalogue.refresh(client, wanted, clock(), abort.signal).catch((error: unknown) => {
        if (!state.stopped)
          logger.warn(
            { err: error },
            "the question catalogue could not be refreshed; it is tried after the next cycle",
          );
      });
      await refreshing;
    }
  };
  void followFacts().catch(() => undefined);
  void followCycles();
  const dropAfterLoi = config.dropAfterLoi ?? 3;
  const intervals = options.intervals ?? {};
  const stops = [
    every("following the question catalogue and yield evidence", intervals.followMs ?? 2000, followFacts, logger),
    every(
      "drop sweep",
      intervals.dropSweepMs ?? 30_000,
      () => sweepDrops(loop, inventory, dropAfterLoi, clock()),
      logger,
    ),
  ];
  const retention: SessionRetention = {
    store: loop.store,
    // Kept a TTL past their expiry (a late GET still says `expired`), then deleted in batches.
    retentionMs: settings.ttlSeconds * 1000,
    async pruneBatch(before, limit) {
      const deleted = await loop.store.write("pruning sessions", pruneSessions(before.toISOString(), limit));
      if (deleted === limit) return { deleted, more: true, deferred: false };
      // The quality gate's starts and devices go with the sessions, once no rule looks back at them.
      const now = clock().getTime();
      const gateRows = await loop.store.write(
        "pruning the quality gate's records",
        pruneGateRecords(
          new Date(now - gate.lookback.startsMs),
          new Date(now - gate.lookback.devicesMs),
          limit - deleted,
        ),
      );
      return { deleted: deleted + gateRows, more: deleted + gateRows === limit, deferred: false };
    },
  };
  const profiles: ProfileAccess = {
    async answers(uid) {
      const horizon = clock().getTime() - settings.profileTtlDays * 86_400_000;
      const stored = await loop.store.read(readProfile(uid));
      const answers: Record<string, string[]> = {};
      for (const answer of stored)
        if (Date.parse(answer.answeredAt) >= horizon) answers[String(answer.qualificationId)] = [...answer.answers];
      return answers;
    },
    async keep(uid, languageId, answers) {
      const stored = new Map(
        (await loop.store.read(readProfile(uid))).map((answer) => [answer.qualificationId, answer]),
      );
      const now = clock();
      // An answer given again stands for another SYNC_PROFILE_TTL_DAYS from now, not from when it
      // was first given (else a session asks again what the supplier sends every day); written
      // again at most once a day, so a respondent matched often costs a read, not a write.
      const staleBefore = now.getTime() - PROFILE_REFRESH_MS;
      const changed = new Map<number, string[]>();
      for (const [key, codes] of Object.entries(answers)) {
        const before = stored.get(Number(key));
        if (
          before === undefined ||
          JSON.stringify(before.answers) !== JSON.stringify(codes) ||
          Date.parse(before.answeredAt) < staleBefore
        )
          changed.set(Number(key), [...codes]);
      }
      if (changed.size === 0) return;
      await loop.store.write(
        "keeping a respondent's answers",
        storeAnswers({ uid, languageId: languageId ?? 0, answers: changed, source: "api", at: now.toISOString() }),
      );
    },
  };
  return {
    routes: sessionRoutes({ sessions, loop, returnUrl: config.sessionReturnUrl, clock }),
    sessions,
    catalogue,
    gateRefusals: () => loop.store.read(refusalCounts()),
    profiles,
    retention,
    sweepDrops: (now) => sweepDrops(loop, inventory, dropAfterLoi, now ?? clock()),
    async stop() {
      state.stopped = true;
      abort.abort();
      await Promise.all(stops.map((stop) => stop()));
      await refreshing.catch(() => undefined);
    },
  };
}
