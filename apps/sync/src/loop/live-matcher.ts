import { SurveyMatcher, type MatchQualification, type SurveyMatcherOptions, type SurveyTargeting } from "@sds/routing";
import type { Survey, SurveyQuota } from "@sds/schemas";
import type { Logger } from "pino";
import type { SurveyDetail } from "../inventory-store/store.ts";
import type { InventoryReader } from "./inventory-reader.ts";
import { RecordCache } from "./record-cache.ts";

/** Options of {@link LiveMatcher}. */
export interface LiveMatcherOptions {
  readonly store: InventoryReader;
  readonly logger: Logger;
  /** Most text of serialised survey records kept in memory for answers, in bytes. @default {@link DEFAULT_RECORD_CACHE_BYTES} */
  readonly recordCacheBytes?: number;
  /** Options of every matcher this one builds (the routing policy, yield ranking). */
  readonly matcherOptions?: SurveyMatcherOptions;
  /** Told of every survey that enters or leaves the matcher, to give it the routing facts (groups, lists, evidence). */
  readonly facts?: SurveyFactsListener;
  /** Told of every survey the matcher applies, with its targeting, to keep another index alike (the sessions'). */
  readonly follower?: InventoryFollower;
}

/** Keeps another in-memory index of the live surveys alike with the matcher (the session's `SessionInventory`). */
export interface InventoryFollower {
  /** A live survey entered or changed (targeting `null` while it awaits a refetch). */
  surveyApplied(survey: Survey, targeting: SurveyTargeting): void;
  surveyRemoved(surveyId: number): void;
  /** A full load ended: only these surveys are live. */
  reloaded(live: ReadonlySet<number>): void;
}

/** Hears of surveys entering and leaving the matcher (see routing-facts.ts). */
export interface SurveyFactsListener {
  surveyApplied(matcher: SurveyMatcher, survey: Survey): void;
  surveyRemoved(surveyId: number): void;
}

const PAGE = 1000;

/**
 * Lets timers, I/O and signals run between pages: SQLite's reads are synchronous, so a load or
 * catch-up of thousands of surveys would otherwise hold the event loop (and a SIGTERM) for seconds.
 */
const yieldToEventLoop = () =>
  new Promise<void>((resolve) => {
    setImmediate(resolve);
  });

/** The default bound of the records kept for answers: about 12,000 records of typical size. */
export const DEFAULT_RECORD_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * The matcher of `@sds/routing`, kept current from the store rather than from this replica's
 * cycle: it loads the live inventory once at start, then **follows the change feed** (and, after
 * each successful run, the set of surveys awaiting a refetch), applying only the surveys that
 * changed. Following the store instead of hooking the cycle means every replica matches, not
 * only the leader, and a replica that starts mid-way catches up from where its load left off.
 * Nothing is rebuilt per request or per cycle; a full reload happens only when the feed was
 * pruned past this replica's position (`SYNC_RETENTION_SECONDS`).
 *
 * A survey awaiting a refetch is held without targeting (the matcher then never routes to it):
 * its stored qualifications or quotas may be stale. That state can change without a feed entry
 * (a failed fetch of a marker that moved), hence the refetch set is compared after each run.
 *
 * The matcher holds no survey records (at 100,000 surveys they would cost hundreds of MB): the
 * records an answer lists are read from the store, through a small cache bounded by bytes.
 */
export class LiveMatcher {
  #matcher: SurveyMatcher;
  readonly #matcherOptions: SurveyMatcherOptions;
  /** Recently listed records as stored (JSON), so that most answers read nothing from the store. */
  readonly #records: RecordCache;
  /** Bumped whenever records may have changed: a read from the store that began before a bump is not cached. */
  #recordsVersion = 0;
  readonly #store: InventoryReader;
  readonly #logger: Logger;
  readonly #facts: SurveyFactsListener | undefined;
  readonly #follower: InventoryFollower | undefined;
  #sequence = 0;
  #runId: number | undefined;
  #awaitingRefetch = new Set<number>();
  #refreshing: Promise<void> | undefined;
  #again = false;
  #loaded = false;
  /** Set while {@link LiveMatcher.start} runs: its first load stops between pages once this aborts. */
  #startSignal: AbortSignal | undefined;

  constructor(options: LiveMatcherOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#facts = options.facts;
    this.#follower = options.follower;
    this.#matcherOptions = options.matcherOptions ?? {};
    this.#matcher = new SurveyMatcher(this.#matcherOptions);
    this.#records = new RecordCache(options.recordCacheBytes ?? DEFAULT_RECORD_CACHE_BYTES);
  }

  /** The matcher: read it per request, never keep it (a reload replaces it). */
  get matcher(): SurveyMatcher {
    return this.#matcher;
  }

  /**
   * The records of the surveys as stored (JSON text), in the order of `surveyIds`, for answers
   * that list them. A survey whose record is no longer stored (pruned meanwhile) is left out.
   */
  async surveyRecords(surveyIds: readonly number[]): Promise<string[]> {
    const found = new Map<number, string>();
    const missing: number[] = [];
    for (const id of surveyIds) {
      const record = this.#records.get(id);
      if (record === undefined) missing.push(id);
      else found.set(id, record);
    }
    if (missing.length > 0) {
      const version = this.#recordsVersion;
      const read = await this.#store.surveyRecords(missing);
      for (const [id, record] of read) {
        found.set(id, record);
        // A refresh that ran during the read may have replaced the record: keep the answer, not the copy.
        if (version === this.#recordsVersion) this.#records.set(id, record);
      }
    }
    return surveyIds.flatMap((id) => {
      const record = found.get(id);
      return record === undefined ? [] : [record];
    });
  }

  /** The record of a survey the matcher holds (it is live), read from the store; `undefined` when not held. */
  async liveSurvey(surveyId: number): Promise<Survey | undefined> {
    if (!this.#matcher.has(surveyId)) return undefined;
    const [record] = await this.surveyRecords([surveyId]);
    return record === undefined ? undefined : (JSON.parse(record) as Survey);
  }

  /** How much of the record cache is in use, for the status page and tests. */
  get recordCache(): { readonly records: number; readonly bytes: number } {
    return { records: this.#records.size, bytes: this.#records.bytes };
  }

  /** Forgets cached records of `ids` (all of them when `ids` is undefined). */
  #forgetRecords(ids?: readonly number[]): void {
    this.#recordsVersion += 1;
    if (ids === undefined) this.#records.clear();
    else for (const id of ids) this.#records.delete(id);
  }

  /** The change-feed sequence the matcher reflects at least. */
  get sequence(): number {
    return this.#sequence;
  }

  /** Whether the initial load completed. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /**
   * Loads the live inventory; following the store afterwards is the loop runtime's
   * `matcher-follower` task ({@link refresh} every `SYNC_MATCHER_POLL_MS`). A stop asked for during
   * the load (`stopSignal`) abandons it between pages (at 100,000 surveys the load takes seconds,
   * and a service about to stop has no use for it): the matcher then stays unloaded, and the
   * service answers matches with 503 until a refresh loads it.
   */
  async start(stopSignal?: AbortSignal): Promise<void> {
    this.#startSignal = stopSignal;
    try {
      await this.refresh();
    } finally {
      this.#startSignal = undefined;
    }
  }

  /**
   * Applies what was committed since the last refresh. Calls made while one runs are coalesced
   * into one more pass after it, so a caller that awaits sees every commit made before its call.
   */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#again = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      try {
        do {
          this.#again = false;
          await (this.#loaded ? this.#follow() : this.#load());
        } while (this.#repeatAsked());
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /** Read through a method: the loop condition narrows the field, but `refresh()` sets it while a pass awaits. */
  #repeatAsked(): boolean {
    return this.#again;
  }

  async #load(): Promise<void> {
    // Positions first: whatever commits during the load is then replayed, which is harmless.
    const [sequence, run] = await Promise.all([this.#store.latestSequence(), this.#store.lastSuccessfulRun()]);
    const matcher = new SurveyMatcher(this.#matcherOptions);
    const awaiting = new Set<number>();
    const loadedIds = new Set<number>();
    let afterId: number | undefined;
    for (;;) {
      const page = await this.#store.listSurveys({
        status: "live",
        limit: PAGE,
        ...(afterId === undefined ? {} : { afterId }),
      });
      const ids = page.surveys.map((survey) => survey.id);
      applyDetails(matcher, awaiting, ids, await this.#store.getSurveys(ids), this.#facts, this.#follower);
      for (const id of ids) loadedIds.add(id);
      if (!page.hasMore || page.lastId === null) break;
      if (this.#startSignal?.aborted) {
        this.#logger.info(
          { surveysLoaded: matcher.size },
          "start: a stop was asked for; the matcher's load is abandoned",
        );
        return;
      }
      afterId = page.lastId;
      await yieldToEventLoop();
    }
    this.#matcher = matcher;
    this.#follower?.reloaded(loadedIds);
    this.#forgetRecords();
    this.#awaitingRefetch = awaiting;
    this.#sequence = sequence;
    this.#runId = run?.id;
    this.#loaded = true;
    this.#logger.info({ surveys: matcher.size, sequence }, "matcher loaded from the store");
  }

  async #follow(): Promise<void> {
    const [latest, run] = await Promise.all([this.#store.latestSequence(), this.#store.lastSuccessfulRun()]);
    if (latest > this.#sequence) {
      if ((await this.#store.feedHorizon()) > this.#sequence) {
        this.#logger.warn(
          { sequence: this.#sequence },
          "the change feed was pruned past the matcher's position: reloading",
        );
        await this.#load();
        return;
      }
      for (;;) {
        const changes = await this.#store.listChanges(this.#sequence, PAGE);
        if (changes.length === 0) break;
        const ids = [...new Set(changes.map((change) => change.surveyId))];
        this.#forgetRecords(ids);
        applyDetails(
          this.#matcher,
          this.#awaitingRefetch,
          ids,
          await this.#store.getSurveys(ids),
          this.#facts,
          this.#follower,
        );
        this.#sequence = changes.at(-1)?.sequence ?? this.#sequence;
        if (changes.length < PAGE) break;
        await yieldToEventLoop();
      }
    }
    if (run !== undefined && run.id !== this.#runId) {
      const awaiting = new Set(await this.#store.refetchPendingIds());
      const moved = [...awaiting].filter((id) => !this.#awaitingRefetch.has(id));
      for (const id of this.#awaitingRefetch) if (!awaiting.has(id)) moved.push(id);
      if (moved.length > 0)
        applyDetails(
          this.#matcher,
          this.#awaitingRefetch,
          moved,
          await this.#store.getSurveys(moved),
          this.#facts,
          this.#follower,
        );
      this.#runId = run.id;
    }
  }
}

/** Brings the matcher in line with the stored state of `ids` (those absent from `details` are gone). */
function applyDetails(
  matcher: SurveyMatcher,
  awaiting: Set<number>,
  ids: readonly number[],
  details: readonly SurveyDetail[],
  facts: SurveyFactsListener | undefined,
  follower?: InventoryFollower,
): void {
  const byId = new Map(details.map((detail) => [detail.id, detail]));
  for (const id of ids) {
    const detail = byId.get(id);
    if (detail?.status !== "live") {
      matcher.remove(id);
      awaiting.delete(id);
      facts?.surveyRemoved(id);
      follower?.surveyRemoved(id);
      continue;
    }
    const survey = detail.survey as Survey;
    if (detail.needsRefetch) {
      awaiting.add(id);
      matcher.upsert(survey, { qualifications: null, quotas: null });
      follower?.surveyApplied(survey, { qualifications: null, quotas: null });
    } else {
      awaiting.delete(id);
      const targeting = {
        qualifications: detail.qualifications as MatchQualification[],
        quotas: detail.quotas as SurveyQuota[],
      };
      matcher.upsert(survey, targeting);
      follower?.surveyApplied(survey, targeting);
    }
    facts?.surveyApplied(matcher, survey);
  }
}
