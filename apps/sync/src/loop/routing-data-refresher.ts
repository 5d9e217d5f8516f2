import { isNotFoundError, type SdsClient } from "@sds/client";
import { parseRecontactRespondents, parseSurveyGroups, parseSurveyStats } from "@sds/schemas";
import type { Logger } from "pino";
import type { RoutingFacts } from "./routing-facts.ts";
import type { LoopStore } from "./store/loop-store.ts";
import type { RoutingDataKind, RoutingDataWrite } from "./store/routing-data-records.ts";

/** Settings of {@link RoutingDataRefresher}. */
export interface RoutingDataRefresherSettings {
  /** How long fetched groups and re-contact lists are trusted before they are fetched again, in ms (`SYNC_GROUPS_REFRESH_SECONDS`). @default 600 s */
  readonly refreshMs: number;
  /** How long fetched stats are trusted, in ms (`SYNC_STATS_REFRESH_SECONDS`); 0 fetches no stats. @default 600 s */
  readonly statsRefreshMs: number;
  /** The sync interval, in ms: the refresh is spread over the cycles of one refresh period. */
  readonly cycleMs: number;
  /** Requests in flight at once. @default 4 */
  readonly concurrency?: number;
}

const isAborted = (signal: AbortSignal): boolean => signal.aborted;

/** The loop store's part the refresher uses. */
type RoutingDataStore = Pick<LoopStore, "writeRoutingData" | "forgetRoutingData" | "readRoutingData">;

/** What one refresh did, for the log, the status and the tests. */
export interface RoutingRefreshReport {
  readonly fetched: Readonly<Record<RoutingDataKind, number>>;
  /** Fetches answered 404 or with a body no parser reads, by kind. */
  readonly failed: Readonly<Record<RoutingDataKind, number>>;
  readonly forgotten: number;
}

/** Surveys at least this many per refresh, whatever the spread says: a small inventory refreshes at once. */
const MIN_PER_REFRESH = 50;

/**
 * Fetches what respondent-aware routing and yield ranking need per live survey: its groups
 * (surveys with `Has_Survey_Groups`), its re-contact list (re-contact studies) and the
 * marketplace's stats. Runs after each cycle of the leader (followers run none), so each is
 * fetched once per replica set. No timestamp says when these change: each is fetched again once
 * `refreshMs` old, new surveys first, the rest spread over the cycles of the period so that no
 * cycle makes them all. The paths are guesses (the spec does not show them): a 404 or an
 * unreadable body is recorded and said loudly, never taken for "no groups" silently.
 */
export class RoutingDataRefresher {
  readonly #client: SdsClient;
  readonly #store: RoutingDataStore;
  readonly #facts: RoutingFacts;
  readonly #logger: Logger;
  readonly #settings: RoutingDataRefresherSettings;
  /** When each (kind, survey) was last fetched: loaded from the store once, kept in memory after. */
  #fetchedAt: Map<string, number> | undefined;

  constructor(options: {
    client: SdsClient;
    store: RoutingDataStore;
    facts: RoutingFacts;
    logger: Logger;
    settings: RoutingDataRefresherSettings;
  }) {
    this.#client = options.client;
    this.#store = options.store;
    this.#facts = options.facts;
    this.#logger = options.logger;
    this.#settings = options.settings;
  }

  /** One refresh: fetches what is due at `now` (the loop runtime's clock, epoch ms), stores it, forgets surveys that left. */
  async refresh(signal: AbortSignal, now: number): Promise<RoutingRefreshReport> {
    const fetchedAt = await this.#fetchedAtMap();
    // A survey that is new, or whose groups flag or study type changed, is fetched at once.
    for (const id of this.#facts.takeChanged())
      for (const kind of ["groups", "recontact"] as const) fetchedAt.delete(`${kind}:${id}`);
    const due = this.#due(fetchedAt, now);
    const writes: RoutingDataWrite[] = [];
    const fetched = { groups: 0, recontact: 0, stats: 0 };
    const failed = { groups: 0, recontact: 0, stats: 0 };
    const problems = new Map<RoutingDataKind, string>();
    let next = 0;
    const worker = async () => {
      while (next < due.length && !signal.aborted) {
        const item = due[next++];
        if (item === undefined) return;
        const write = await this.#fetch(item.kind, item.surveyId, signal);
        // Read through a function: the abort can come while the fetch awaits.
        if (isAborted(signal)) return;
        writes.push(write);
        fetchedAt.set(`${item.kind}:${item.surveyId}`, now);
        fetched[item.kind] += 1;
        if (write.kind === "failed") {
          failed[write.of] += 1;
          problems.set(write.of, write.problem);
        }
      }
    };
    await Promise.all(Array.from({ length: this.#settings.concurrency ?? 4 }, worker));
    const live = this.#facts.traits;
    const gone = [...new Set([...fetchedAt.keys()].map((key) => Number(key.slice(key.indexOf(":") + 1))))].filter(
      (id) => !live.has(id),
    );
    for (const key of [...fetchedAt.keys()])
      if (!live.has(Number(key.slice(key.indexOf(":") + 1)))) fetchedAt.delete(key);
    // A stop (the abort) drops what this refresh fetched: the service is closing its store, and the next start fetches it again.
    if (isAborted(signal)) return { fetched, failed, forgotten: 0 };
    if (writes.length > 0) await this.#store.writeRoutingData(writes, new Date(now));
    if (gone.length > 0) await this.#store.forgetRoutingData(gone);
    for (const [kind, problem] of problems) {
      const effect =
        kind === "groups"
          ? "those surveys are routed as if they had no groups"
          : kind === "recontact"
            ? "those re-contact studies stay out of routing"
            : "yield ranking uses Ir as the prior";
      this.#logger.warn(
        { kind, surveys: failed[kind], problem },
        `${kind === "stats" ? "survey stats" : kind === "groups" ? "survey groups" : "re-contact lists"} could not be read for ${failed[kind]} surveys (${problem}); ${effect}`,
      );
    }
    return { fetched, failed, forgotten: gone.length };
  }

  async #fetchedAtMap(): Promise<Map<string, number>> {
    if (this.#fetchedAt === undefined) {
      const data = await this.#store.readRoutingData();
      this.#fetchedAt = new Map(
        data.fetches.map((fetch) => [`${fetch.kind}:${fetch.surveyId}`, Date.parse(fetch.fetchedAt)]),
      );
    }
    return this.#fetchedAt;
  }

  /** What to fetch this time: never-fetched first, then the oldest, at most a share of the period's work. */
  #due(fetchedAt: ReadonlyMap<string, number>, now: number): { kind: RoutingDataKind; surveyId: number }[] {
    const wanted: { kind: RoutingDataKind; surveyId: number; at: number; every: number }[] = [];
    for (const [surveyId, traits] of this.#facts.traits) {
      const kinds: [RoutingDataKind, number][] = [];
      // A survey without the flag whose groups were fetched before (it left its last group) is fetched once more, to clear them.
      if (traits.hasGroups || this.#facts.data.groups.has(surveyId)) kinds.push(["groups", this.#settings.refreshMs]);
      if (this.#facts.isRecontactStudy(traits.studyTypeId)) kinds.push(["recontact", this.#settings.refreshMs]);
      if (this.#settings.statsRefreshMs > 0) kinds.push(["stats", this.#settings.statsRefreshMs]);
      for (const [kind, every] of kinds)
        wanted.push({ kind, surveyId, at: fetchedAt.get(`${kind}:${surveyId}`) ?? Number.NEGATIVE_INFINITY, every });
    }
    const fresh = wanted.filter((item) => item.at === Number.NEGATIVE_INFINITY);
    const stale = wanted
      .filter((item) => item.at !== Number.NEGATIVE_INFINITY && now - item.at >= item.every)
      .sort((a, b) => a.at - b.at);
    const perPeriod = wanted.filter((item) => item.at !== Number.NEGATIVE_INFINITY).length;
    const share = Math.max(
      MIN_PER_REFRESH,
      Math.ceil((perPeriod * this.#settings.cycleMs) / Math.max(1, this.#settings.refreshMs)),
    );
    return [...fresh, ...stale.slice(0, share)];
  }

  async #fetch(kind: RoutingDataKind, surveyId: number, signal: AbortSignal): Promise<RoutingDataWrite> {
    try {
      switch (kind) {
        case "groups": {
          const parsed = parseSurveyGroups(await this.#client.surveys.groups(surveyId, { signal }));
          if (!parsed.ok) return { kind: "failed", surveyId, of: kind, status: "unreadable", problem: parsed.problem };
          // The groups a survey's own answer names are the groups it belongs to (its membership is per survey, so a survey leaving a group frees the others).
          return { kind: "groups", surveyId, groupIds: parsed.groups.map((group) => group.groupId) };
        }
        case "recontact": {
          const parsed = parseRecontactRespondents(await this.#client.recontacts.list(surveyId, { signal }));
          if (!parsed.ok) return { kind: "failed", surveyId, of: kind, status: "unreadable", problem: parsed.problem };
          return { kind: "recontact", surveyId, respondents: parsed.respondents };
        }
        case "stats": {
          const parsed = parseSurveyStats(await this.#client.surveys.stats(surveyId, { signal }));
          if (!parsed.ok) return { kind: "failed", surveyId, of: kind, status: "unreadable", problem: parsed.problem };
          const { conversion, effectiveEpc, lengthOfInterview, scope } = parsed.stats;
          const any = conversion !== undefined || effectiveEpc !== undefined || lengthOfInterview !== undefined;
          return {
            kind: "stats",
            surveyId,
            stats: any
              ? {
                  conversion: conversion ?? null,
                  effectiveEpc: effectiveEpc ?? null,
                  lengthOfInterview: lengthOfInterview ?? null,
                  scope,
                }
              : undefined,
          };
        }
      }
    } catch (error) {
      if (isNotFoundError(error))
        return {
          kind: "failed",
          surveyId,
          of: kind,
          status: "missing",
          problem: `404 from the upstream (the path of this operation is a guess; the spec does not show it)`,
        };
      if (signal.aborted) throw error;
      return {
        kind: "failed",
        surveyId,
        of: kind,
        status: "unreadable",
        problem: error instanceof Error ? error.message.slice(0, 300) : String(error),
      };
    }
  }
}
