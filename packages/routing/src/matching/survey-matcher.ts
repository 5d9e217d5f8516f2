// Over 400 lines, on purpose: the matcher's typed arrays and bitsets are read in its hot loops
// (the candidate passes and the two collect loops), and splitting the class would expose them.
// What does not need them lives beside it: respondent rules in ../respondent, estimation in
// ../yield, the yield ranking in yield-ranker.ts, explain sentences in respondent-reasons.ts.
import type { Device, SurveyQuota } from "@sds/schemas";
import { BitsetPool, type Bitset } from "../internal/bitset.ts";
import { Posting } from "../internal/posting.ts";
import { checkRespondent, excludeByHistory, historyVerdict } from "../respondent/history-rules.ts";
import type { RecontactList, Respondent, RoutingPolicy } from "../respondent/respondent-types.ts";
import { resolveRoutingPolicy, type ResolvedRoutingPolicy } from "../respondent/routing-policy.ts";
import { SurveyGroups } from "../respondent/survey-groups.ts";
import type { YieldEvidence } from "../yield/yield-evidence.ts";
import { answerNumber } from "./answer-rule.ts";
import {
  compileTargeting,
  decimalField,
  expectedEarnings,
  type CompiledTargeting,
  type SurveyFacts,
} from "./compiled-survey.ts";
import { closedQuotaFor, exclusionReasons, qualificationsMet, type AnswerLookup } from "./evaluate.ts";
import {
  DEFAULT_MATCH_LIMIT,
  MAX_MATCH_LIMIT,
  type ExclusionReason,
  type Explanation,
  type MatchableSurvey,
  type MatchQualification,
  type MatchRequest,
  type MatchResult,
} from "./match-types.ts";
import { packTargeting, unpackTargeting } from "./packed-targeting.ts";
import { historyReasons, recontactReason, unroutableReason } from "./respondent-reasons.ts";
import { SlotMarks } from "./slot-marks.ts";
import { TopSlots } from "./top-slots.ts";
import { YieldRanker, type YieldOptions } from "./yield-ranker.ts";

/** How a {@link SurveyMatcher} routes besides the inventory. */
export interface SurveyMatcherOptions {
  /** How a respondent's history keeps surveys out (requests that name a `respondent`). @default the strictest: no re-entry, every group entry blocks, no caps */
  readonly policy?: RoutingPolicy;
  /** How order `"yield"` estimates and ranks. */
  readonly yield?: YieldOptions;
}

/** What a survey is routed on besides itself; `null` where it is not stored (then it is never matched). */
export interface SurveyTargeting {
  /** Its qualification records (`[]` for a survey without any), or `null` while awaiting a refetch. */
  readonly qualifications: readonly MatchQualification[] | null;
  /** Its quotas (`[]` for a survey without any), or `null` while awaiting a refetch. */
  readonly quotas: readonly SurveyQuota[] | null;
}

interface QualificationIndex {
  readonly key: string;
  /** Surveys that screen on this qualification (tracking its non-zero words). */
  readonly required: Bitset;
  /** Code → surveys that accept it. */
  readonly byCode: Map<string, Posting>;
  /** Surveys with range codes → their flattened bounds. */
  readonly ranges: Map<number, readonly number[]>;
  /** Numeric answer → the slots whose ranges hold it; cleared whenever `ranges` changes. */
  readonly rangeHits: Map<number, Int32Array>;
}

/** Most distinct numeric answers remembered per qualification (answers are user input: bounded). */
const RANGE_HITS_KEPT = 512;

const INITIAL_WORDS = 32;

/** Bits of a slot's `#devices` entry. */
const DEVICE_BITS: Readonly<Record<Device, number>> = { desktop: 1, mobile: 2, tablet: 4 };

/**
 * The live inventory in memory, indexed for matching respondents. A sync cycle keeps it current
 * with {@link SurveyMatcher.upsert} and {@link SurveyMatcher.remove}, survey by survey: nothing
 * is ever rebuilt as a whole. Indexes are bitsets over survey slots (per language, device,
 * qualification and answer code), so a match costs a few word-wise passes rather than a walk
 * over every survey's rules.
 *
 * Eligible: surveys whose qualifications and quotas are stored; the language and device when
 * asked; every qualification met (AND across, OR within; range codes `"25-34"`, `"55+"`); and no
 * closed quota (`Remaining <= 0`) that the respondent falls into. Order: `Cpi × Ir / 100`
 * descending, then `SurveyId` ascending.
 *
 * It keeps what matching needs and nothing more: per survey its id, score, language and devices
 * in typed arrays, its slot in the indexes, and its targeting packed into one string (read back
 * only to update the indexes, to explain, and kept compiled for the few surveys the indexes
 * cannot decide). It never holds survey records: a match returns survey ids, and the caller
 * looks the records up where it keeps them (sds-sync: its store).
 *
 * @example
 * ```ts
 * const matcher = new SurveyMatcher();
 * matcher.upsert(survey, { qualifications, quotas });
 * const { surveyIds } = matcher.match({ answers: { "42": ["30"], "43": ["2"] }, device: "mobile" });
 * ```
 *
 * Besides the inventory, the service sets per survey id its groups ({@link setSurveyGroups}),
 * its re-contact list ({@link setRecontact}), whether its URL is unusable ({@link setUnroutable})
 * and its outcomes so far ({@link setYieldEvidence}). These are kept by survey id whether or not
 * the survey is live (an entry into a closed survey still blocks its group; a re-contact study
 * that closes and reopens stays one) until the service sets them again or clears them.
 */
export class SurveyMatcher {
  readonly #pool = new BitsetPool(INITIAL_WORDS);
  readonly #policy: ResolvedRoutingPolicy;
  readonly #groups = new SurveyGroups();
  readonly #recontact = new SlotMarks<RecontactList>(this.#pool);
  readonly #unroutable = new SlotMarks<string>(this.#pool);
  readonly #yield: YieldRanker;
  readonly #slotById = new Map<number, number>();
  /** Per slot, the compiled targeting packed by {@link packTargeting}; `undefined` for a free slot. */
  readonly #targeting: (string | undefined)[] = [];
  /** The compiled targeting of the slots in `#directCheck`, which every match may read. */
  readonly #directTargeting = new Map<number, CompiledTargeting>();
  readonly #freeSlots: number[] = [];
  #scores = new Float64Array(INITIAL_WORDS * 32);
  #surveyIds = new Float64Array(INITIAL_WORDS * 32);
  #languages = new Float64Array(INITIAL_WORDS * 32);
  /** Per slot, the devices it allows ({@link DEVICE_BITS}). */
  #devices = new Uint8Array(INITIAL_WORDS * 32);
  #candidates = new Uint32Array(INITIAL_WORDS);
  #met = new Uint32Array(INITIAL_WORDS);
  #zero = new Uint32Array(INITIAL_WORDS);

  /** Stored surveys with nothing that excludes everyone. */
  readonly #routable = this.#pool.create();
  /** Surveys that need a direct check after the indexes: closed conditional quotas, repeated qualifications. */
  readonly #directCheck = this.#pool.create();
  readonly #byLanguage = new Map<number, Bitset>();
  readonly #byDevice: Readonly<Record<Device, Bitset>> = {
    desktop: this.#pool.create(),
    mobile: this.#pool.create(),
    tablet: this.#pool.create(),
  };
  readonly #qualifications = new Map<number, QualificationIndex>();

  /**
   * @throws RangeError when the policy or the yield options hold a value out of range.
   */
  constructor(options: SurveyMatcherOptions = {}) {
    this.#policy = resolveRoutingPolicy(options.policy);
    this.#yield = new YieldRanker(this.#pool, options.yield);
  }

  /** How many surveys the matcher holds (stored or awaiting a refetch). */
  get size(): number {
    return this.#slotById.size;
  }

  /** Whether the matcher holds the survey. */
  has(surveyId: number): boolean {
    return this.#slotById.has(surveyId);
  }

  /**
   * Adds a live survey or replaces what is held for it, indexes updated in place. Only the fields
   * of {@link MatchableSurvey} are read, and neither the survey nor its targeting is kept.
   */
  upsert(survey: MatchableSurvey, targeting: SurveyTargeting): void {
    let slot = this.#slotById.get(survey.SurveyId);
    const fresh = slot === undefined;
    if (slot === undefined) {
      slot = this.#allocateSlot();
      this.#slotById.set(survey.SurveyId, slot);
      this.#recontact.attach(survey.SurveyId, slot);
      this.#unroutable.attach(survey.SurveyId, slot);
    } else {
      this.#unindex(slot);
    }
    const compiled = compileTargeting(targeting.qualifications, targeting.quotas);
    this.#targeting[slot] = packTargeting(compiled);
    this.#scores[slot] = expectedEarnings(survey);
    this.#surveyIds[slot] = survey.SurveyId;
    this.#languages[slot] = survey.LanguageId;
    this.#devices[slot] =
      (survey.DesktopAllowed ? DEVICE_BITS.desktop : 0) |
      (survey.MobileAllowed ? DEVICE_BITS.mobile : 0) |
      (survey.TabletAllowed ? DEVICE_BITS.tablet : 0);
    this.#yield.place(slot, survey.SurveyId, decimalField(survey.Cpi), decimalField(survey.Ir), fresh);
    this.#index(slot, compiled);
  }

  /** Drops a survey that is no longer live. Returns whether it was held. */
  remove(surveyId: number): boolean {
    const slot = this.#slotById.get(surveyId);
    if (slot === undefined) return false;
    this.#unindex(slot);
    this.#targeting[slot] = undefined;
    this.#recontact.detach(slot);
    this.#unroutable.detach(slot);
    this.#yield.release(slot);
    this.#slotById.delete(surveyId);
    this.#freeSlots.push(slot);
    return true;
  }

  /**
   * Replaces the groups a survey belongs to (`[]`: none). A group's members are the surveys
   * whose groups name it; a respondent who entered one member is kept out of the others.
   *
   * @throws TypeError when a group id is not an integer.
   */
  setSurveyGroups(surveyId: number, groupIds: readonly number[]): void {
    this.#groups.set(surveyId, groupIds);
  }

  /**
   * Makes a survey a re-contact study that admits only the given uids (its ACTIVE list, copied),
   * or one whose list could not be read (`"unreadable"`: out for everyone); `undefined` when it
   * is no longer a re-contact study.
   *
   * @throws TypeError when the list is neither `"unreadable"` nor an iterable of strings.
   */
  setRecontact(surveyId: number, list: Iterable<string> | "unreadable" | undefined): void {
    let kept: RecontactList | undefined;
    if (list === undefined) kept = undefined;
    else if (list === "unreadable") kept = "unreadable";
    else {
      if (typeof list === "string" || typeof (list as Partial<Iterable<string>>)[Symbol.iterator] !== "function") {
        throw new TypeError(`survey ${surveyId}: a re-contact list is "unreadable" or an iterable of uids`);
      }
      kept = new Set(list);
    }
    this.#recontact.set(surveyId, kept, this.#slotById.get(surveyId));
  }

  /**
   * Marks a survey as one the service cannot route to (an unusable `SurveyUrl`, say), with the
   * reason `explain` gives; `undefined` clears the mark. Marked surveys are never matched.
   *
   * @throws TypeError when the reason is not a non-empty string.
   */
  setUnroutable(surveyId: number, reason: string | undefined): void {
    if (reason !== undefined && (typeof reason !== "string" || reason.length === 0))
      throw new TypeError(`survey ${surveyId}: an unroutable reason must be a non-empty string`);
    this.#unroutable.set(surveyId, reason, this.#slotById.get(surveyId));
  }

  /**
   * Sets what the service knows of a survey's outcomes, for order `"yield"` (`undefined`: nothing,
   * the prior alone). Cheap enough to call on every outcome: one map entry, no re-sorting.
   *
   * @throws RangeError when a count is out of range (see {@link YieldEvidence}).
   */
  setYieldEvidence(surveyId: number, evidence: YieldEvidence | undefined): void {
    this.#yield.setEvidence(surveyId, evidence, this.#slotById.get(surveyId));
  }

  /**
   * The ids of the surveys the respondent qualifies for, best first.
   *
   * @throws RangeError when `limit` is not an integer from 1 to 5000, `order` is unknown or `now` is not finite.
   * @throws TypeError when the respondent or an entry of their history is malformed.
   */
  match(request: MatchRequest): MatchResult {
    const limit = request.limit ?? DEFAULT_MATCH_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MATCH_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_MATCH_LIMIT}, got ${limit}`);
    }
    const byYield = orderIsYield(request.order);
    const { respondent } = request;
    if (respondent !== undefined) checkRespondent(respondent);
    const now = requestTime(request.now, respondent !== undefined || byYield);
    const answers = toLookup(request.answers);
    const candidates = this.#candidates;
    candidates.set(this.#routable.words);
    if (request.languageId !== undefined)
      this.#intersect(this.#byLanguage.get(request.languageId)?.words ?? this.#zero);
    if (request.device !== undefined) this.#intersect(this.#byDevice[request.device].words);
    const met = this.#met;
    for (const index of this.#qualifications.values()) {
      // Only the words where some survey screens on this qualification can change.
      const words = index.required.nonzeroWords;
      const required = index.required.words;
      this.#markMet(index, answers.get(index.key), words);
      for (const word of words) {
        candidates[word] = (candidates[word] ?? 0) & (~(required[word] ?? 0) | (met[word] ?? 0));
        met[word] = 0;
      }
    }
    if (this.#unroutable.bits.size > 0) this.#subtract(this.#unroutable.bits.words);
    if (
      respondent !== undefined &&
      excludeByHistory(respondent, this.#policy, this.#groups, now, this.#excludeSurvey).length > 0
    ) {
      return { surveyIds: [], eligible: 0 };
    }
    return byYield
      ? this.#collectByYield(answers, limit, respondent?.uid, now, request)
      : this.#collect(answers, limit, respondent?.uid);
  }

  /**
   * The held surveys the respondent rules keep out for this respondent (or for everyone): their
   * history (entered before, survey groups), re-contact studies that do not admit them and
   * surveys marked unroutable; `capReached` when a 24-hour cap keeps every survey out. What a
   * session weighs its order over, without evaluating targeting (its own pass does that).
   *
   * @throws TypeError when the respondent or an entry of their history is malformed.
   */
  respondentExclusions(respondent: Respondent | undefined, now: number = Date.now()): RespondentExclusions {
    const surveyIds = new Set<number>();
    const add = (surveyId: number): void => {
      surveyIds.add(surveyId);
    };
    let capReached = false;
    if (respondent !== undefined) {
      checkRespondent(respondent);
      capReached = excludeByHistory(respondent, this.#policy, this.#groups, now, add).length > 0;
    }
    forEachSlot(this.#unroutable.bits.words, (slot) => {
      add(this.#surveyIds[slot] ?? 0);
    });
    forEachSlot(this.#recontact.bits.words, (slot) => {
      if (!this.#admits(slot, respondent?.uid)) add(this.#surveyIds[slot] ?? 0);
    });
    return { capReached, surveyIds };
  }

  /** Takes one survey (by id) out of the candidates of the current match; bound once, called per excluded survey. */
  readonly #excludeSurvey = (surveyId: number): void => {
    const slot = this.#slotById.get(surveyId);
    if (slot !== undefined) this.#candidates[slot >>> 5] = (this.#candidates[slot >>> 5] ?? 0) & ~(1 << (slot & 31));
  };

  /** Why the survey is out for this respondent (or that it is in). A survey not held is `not-live`. */
  explain(surveyId: number, request: Omit<MatchRequest, "limit">): Explanation {
    const slot = this.#slotById.get(surveyId);
    const packed = slot === undefined ? undefined : this.#targeting[slot];
    if (slot === undefined || packed === undefined) {
      return {
        surveyId,
        eligible: false,
        reasons: [{ kind: "not-live", message: `survey ${surveyId} is not live (not held by the matcher)` }],
      };
    }
    const byYield = orderIsYield(request.order);
    const { respondent } = request;
    if (respondent !== undefined) checkRespondent(respondent);
    const now = requestTime(request.now, respondent !== undefined || byYield);
    const reasons = exclusionReasons(this.#facts(slot), unpackTargeting(packed), toLookup(request.answers), request);
    reasons.push(...this.#respondentReasons(surveyId, request, now));
    if (!byYield) return { surveyId, eligible: reasons.length === 0, reasons };
    const { yield: estimate, cutoff } = this.#yield.explain(
      slot,
      surveyId,
      request,
      now,
      (request as MatchRequest).explore ?? undefined,
    );
    if (cutoff !== undefined) reasons.push(cutoff);
    return { surveyId, eligible: reasons.length === 0, reasons, yield: estimate };
  }

  /** The reasons beyond the survey's own rules: unroutable, re-contact, the respondent's history. */
  #respondentReasons(surveyId: number, request: Omit<MatchRequest, "limit">, now: number): ExclusionReason[] {
    const reasons: ExclusionReason[] = [];
    const unroutable = this.#unroutable.get(surveyId);
    if (unroutable !== undefined) reasons.push(unroutableReason(unroutable));
    const list = this.#recontact.get(surveyId);
    const recontact = list === undefined ? undefined : recontactReason(list, request.respondent?.uid);
    if (recontact !== undefined) reasons.push(recontact);
    const { respondent } = request;
    if (respondent !== undefined)
      reasons.push(...historyReasons(historyVerdict(surveyId, respondent, this.#policy, this.#groups, now)));
    return reasons;
  }

  /** The survey fields that `explain` reports, as held for the slot. */
  #facts(slot: number): SurveyFacts {
    const devices = this.#devices[slot] ?? 0;
    return {
      LanguageId: this.#languages[slot] ?? 0,
      DesktopAllowed: (devices & DEVICE_BITS.desktop) !== 0,
      MobileAllowed: (devices & DEVICE_BITS.mobile) !== 0,
      TabletAllowed: (devices & DEVICE_BITS.tablet) !== 0,
    };
  }

  #intersect(words: Uint32Array): void {
    const candidates = this.#candidates;
    for (let word = 0; word < candidates.length; word++)
      candidates[word] = (candidates[word] ?? 0) & (words[word] ?? 0);
  }

  #subtract(words: Uint32Array): void {
    const candidates = this.#candidates;
    for (let word = 0; word < candidates.length; word++)
      candidates[word] = (candidates[word] ?? 0) & ~(words[word] ?? 0);
  }

  /** Sets in `#met` (zero on `words` before) the surveys of the index whose qualification the answers meet. */
  #markMet(index: QualificationIndex, given: readonly string[] | undefined, words: readonly number[]): void {
    if (given === undefined || given.length === 0) return;
    const met = this.#met;
    for (const answer of given) index.byCode.get(answer)?.orInto(met, words);
    if (index.ranges.size === 0) return;
    for (const answer of given) {
      const value = answerNumber(answer);
      if (value === undefined) continue;
      for (const slot of rangeHits(index, value)) met[slot >>> 5] = (met[slot >>> 5] ?? 0) | (1 << (slot & 31));
    }
  }

  #collect(answers: AnswerLookup, limit: number, uid: string | undefined): MatchResult {
    const top = new TopSlots(limit, this.#scores, this.#surveyIds);
    const candidates = this.#candidates;
    const direct = this.#directCheck.words;
    const recontact = this.#recontact.bits.words;
    let eligible = 0;
    for (let word = 0; word < candidates.length; word++) {
      let bits = candidates[word] ?? 0;
      while (bits !== 0) {
        const lowest = bits & -bits;
        const slot = word * 32 + (31 - Math.clz32(lowest));
        bits ^= lowest;
        if (((direct[word] ?? 0) & lowest) !== 0 && !this.#passesDirectCheck(slot, answers)) continue;
        if (((recontact[word] ?? 0) & lowest) !== 0 && !this.#admits(slot, uid)) continue;
        eligible++;
        top.offer(slot);
      }
    }
    const surveyIds = top.sorted().map((slot) => this.#surveyIds[slot] ?? 0);
    return { surveyIds, eligible };
  }

  /**
   * Under yield: one pass drops from the candidates every survey that a direct check, a
   * re-contact list or the cut-off keeps out (so `eligible` is exact), then the ranker visits
   * the rest by `Cpi` and samples only those that could make the results.
   */
  #collectByYield(
    answers: AnswerLookup,
    limit: number,
    uid: string | undefined,
    now: number,
    request: object,
  ): MatchResult {
    const candidates = this.#candidates;
    const direct = this.#directCheck.words;
    const recontact = this.#recontact.bits.words;
    const held = this.#yield.mayBeHeldOut;
    let eligible = 0;
    for (let word = 0; word < candidates.length; word++) {
      let bits = candidates[word] ?? 0;
      while (bits !== 0) {
        const lowest = bits & -bits;
        const slot = word * 32 + (31 - Math.clz32(lowest));
        bits ^= lowest;
        if (
          (((direct[word] ?? 0) & lowest) !== 0 && !this.#passesDirectCheck(slot, answers)) ||
          (((recontact[word] ?? 0) & lowest) !== 0 && !this.#admits(slot, uid)) ||
          (((held[word] ?? 0) & lowest) !== 0 && this.#yield.isHeldOut(this.#surveyIds[slot] ?? 0, now))
        ) {
          candidates[word] = (candidates[word] ?? 0) & ~lowest;
          continue;
        }
        eligible++;
      }
    }
    const surveyIds = this.#yield
      .rank(candidates, limit, this.#surveyIds, request, (request as MatchRequest).explore ?? undefined)
      .map((slot) => this.#surveyIds[slot] ?? 0);
    return { surveyIds, eligible };
  }

  /** Whether the re-contact study in the slot admits the uid. */
  #admits(slot: number, uid: string | undefined): boolean {
    const list = this.#recontact.get(this.#surveyIds[slot] ?? 0);
    return uid !== undefined && list !== undefined && list !== "unreadable" && list.has(uid);
  }

  #passesDirectCheck(slot: number, answers: AnswerLookup): boolean {
    const compiled = this.#directTargeting.get(slot);
    if (compiled === undefined) return false;
    if (closedQuotaFor(compiled, answers) !== undefined) return false;
    // Repeated qualification ids are indexed by their first record only; check them all here.
    return qualificationsMet(compiled, answers);
  }

  #allocateSlot(): number {
    const free = this.#freeSlots.pop();
    if (free !== undefined) return free;
    const slot = this.#targeting.length;
    this.#targeting.push(undefined);
    if (slot >= this.#pool.wordCount * 32) this.#grow(this.#pool.wordCount * 2);
    return slot;
  }

  #grow(wordCount: number): void {
    this.#pool.grow(wordCount);
    const scores = new Float64Array(wordCount * 32);
    scores.set(this.#scores);
    this.#scores = scores;
    const surveyIds = new Float64Array(wordCount * 32);
    surveyIds.set(this.#surveyIds);
    this.#surveyIds = surveyIds;
    const languages = new Float64Array(wordCount * 32);
    languages.set(this.#languages);
    this.#languages = languages;
    const devices = new Uint8Array(wordCount * 32);
    devices.set(this.#devices);
    this.#devices = devices;
    this.#yield.grow(wordCount * 32);
    this.#candidates = new Uint32Array(wordCount);
    this.#met = new Uint32Array(wordCount);
    this.#zero = new Uint32Array(wordCount);
  }

  #index(slot: number, compiled: CompiledTargeting): void {
    this.#forEachMembership(slot, compiled, (bitset) => {
      bitset.add(slot);
    });
    if (this.#directCheck.has(slot)) this.#directTargeting.set(slot, compiled);
    const seen = new Set<number>();
    for (const rule of compiled.qualifications ?? []) {
      if (seen.has(rule.qualificationId)) continue;
      seen.add(rule.qualificationId);
      let index = this.#qualifications.get(rule.qualificationId);
      if (index === undefined) {
        index = {
          key: rule.key,
          required: this.#pool.create({ trackWords: true }),
          byCode: new Map(),
          ranges: new Map(),
          rangeHits: new Map(),
        };
        this.#qualifications.set(rule.qualificationId, index);
      }
      index.required.add(slot);
      for (const code of rule.codes) {
        let posting = index.byCode.get(code);
        if (posting === undefined) {
          posting = new Posting(this.#pool);
          index.byCode.set(code, posting);
        }
        posting.add(slot);
      }
      if (rule.ranges.length > 0) {
        index.ranges.set(slot, rule.ranges);
        index.rangeHits.clear();
      }
    }
  }

  #unindex(slot: number): void {
    const packed = this.#targeting[slot];
    if (packed === undefined) return;
    const compiled = this.#directTargeting.get(slot) ?? unpackTargeting(packed);
    this.#forEachMembership(slot, compiled, (bitset) => {
      bitset.delete(slot);
    });
    this.#directTargeting.delete(slot);
    const languageId = this.#languages[slot] ?? 0;
    const language = this.#byLanguage.get(languageId);
    if (language?.size === 0) {
      this.#byLanguage.delete(languageId);
      this.#pool.release(language);
    }
    for (const rule of compiled.qualifications ?? []) {
      const index = this.#qualifications.get(rule.qualificationId);
      // The first record of a repeated qualification id is the one indexed.
      if (index === undefined || !index.required.has(slot)) continue;
      index.required.delete(slot);
      if (index.ranges.delete(slot)) index.rangeHits.clear();
      for (const code of rule.codes) {
        const posting = index.byCode.get(code);
        if (posting === undefined) continue;
        posting.delete(slot);
        if (posting.size === 0) {
          index.byCode.delete(code);
          posting.release();
        }
      }
      if (index.required.size === 0) {
        this.#qualifications.delete(rule.qualificationId);
        this.#pool.release(index.required);
      }
    }
  }

  /** Calls `visit` with every non-qualification bitset the slot belongs to (its fields set, its targeting `compiled`). */
  #forEachMembership(slot: number, compiled: CompiledTargeting, visit: (bitset: Bitset) => void): void {
    const closedQuotas = compiled.closedQuotas ?? [];
    const stored = compiled.qualifications !== null && compiled.closedQuotas !== null;
    const closedForEveryone = closedQuotas.some(
      (quota) => quota.conditions === undefined || quota.conditions.length === 0,
    );
    if (stored && !closedForEveryone) visit(this.#routable);
    const qualificationIds = compiled.qualifications?.map((rule) => rule.qualificationId) ?? [];
    if (closedQuotas.length > 0 || new Set(qualificationIds).size !== qualificationIds.length) visit(this.#directCheck);
    const languageId = this.#languages[slot] ?? 0;
    let language = this.#byLanguage.get(languageId);
    if (language === undefined) {
      language = this.#pool.create();
      this.#byLanguage.set(languageId, language);
    }
    visit(language);
    const devices = this.#devices[slot] ?? 0;
    for (const device of ["desktop", "mobile", "tablet"] as const)
      if ((devices & DEVICE_BITS[device]) !== 0) visit(this.#byDevice[device]);
  }
}

/** What {@link SurveyMatcher.respondentExclusions} finds. */
export interface RespondentExclusions {
  readonly capReached: boolean;
  readonly surveyIds: ReadonlySet<number>;
}

/** Calls `visit` with every slot set in `words`. */
function forEachSlot(words: Uint32Array, visit: (slot: number) => void): void {
  for (let word = 0; word < words.length; word++) {
    let bits = words[word] ?? 0;
    while (bits !== 0) {
      const lowest = bits & -bits;
      visit(word * 32 + (31 - Math.clz32(lowest)));
      bits ^= lowest;
    }
  }
}

/** The slots of the index whose range codes hold `value`, remembered until the ranges change. */
function rangeHits(index: QualificationIndex, value: number): Int32Array {
  const known = index.rangeHits.get(value);
  if (known !== undefined) return known;
  const slots: number[] = [];
  index.ranges.forEach((bounds, slot) => {
    for (let bound = 0; bound < bounds.length; bound += 2) {
      if (value >= (bounds[bound] ?? Number.NaN) && value <= (bounds[bound + 1] ?? Number.NaN)) {
        slots.push(slot);
        return;
      }
    }
  });
  const hits = Int32Array.from(slots);
  if (index.rangeHits.size >= RANGE_HITS_KEPT) index.rangeHits.clear();
  index.rangeHits.set(value, hits);
  return hits;
}

function orderIsYield(order: MatchRequest["order"]): boolean {
  // Read as any string: callers in plain JavaScript can pass anything.
  const given: string | undefined = order;
  if (given === undefined || given === "earnings") return false;
  if (given === "yield") return true;
  throw new RangeError(`order must be "earnings" or "yield", got ${given}`);
}

/** The time of a request: `now` checked, else the clock when a rule needs it. */
function requestTime(now: number | undefined, needed: boolean): number {
  if (now === undefined) return needed ? Date.now() : 0;
  if (!Number.isFinite(now)) throw new RangeError(`now must be epoch milliseconds, got ${now}`);
  return now;
}

function toLookup(answers: MatchRequest["answers"]): AnswerLookup {
  if (answers instanceof Map) return answers as AnswerLookup;
  return new ObjectAnswers(answers as Readonly<Record<string, readonly string[]>>);
}

/** A plain answers object read as a lookup, by own keys only (`__proto__` or `constructor` are just names). */
class ObjectAnswers implements Pick<AnswerLookup, "get"> {
  readonly #answers: Readonly<Record<string, readonly string[]>>;

  constructor(answers: Readonly<Record<string, readonly string[]>>) {
    this.#answers = answers;
  }

  get(key: string): readonly string[] | undefined {
    return Object.hasOwn(this.#answers, key) ? this.#answers[key] : undefined;
  }
}
