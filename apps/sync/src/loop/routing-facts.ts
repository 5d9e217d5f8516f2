import type { SurveyMatcher, YieldEvidence } from "@sds/routing";
import type { Survey } from "@sds/schemas";
import type { RoutingData, SurveyYieldCounts } from "./store/routing-data-records.ts";

/** What a survey is, as the routing data cares: whether it has groups, and its study type. */
export interface SurveyTraits {
  readonly hasGroups: boolean;
  readonly studyTypeId: number | null;
}

/** Why the service cannot route to a survey for anyone: its Cpi is not a price, or its URL cannot make an entry link. */
export interface UnusableSurvey {
  readonly reason: "price" | "url";
  readonly message: string;
}

/** Settings of {@link RoutingFacts}. */
export interface RoutingFactsSettings {
  /** `StudyTypeId`s of re-contact studies configured by hand (`SYNC_RECONTACT_STUDY_TYPES`), besides those the StudyTypes collection names. */
  readonly recontactStudyTypes: readonly number[];
  /** What a survey whose group list cannot be read does: route as if it had no groups, or stay out. @default "route" */
  readonly missingGroups: "route" | "exclude";
  /**
   * Why the service cannot route to a survey for everyone (checked once per survey as it enters
   * the matcher): its URL cannot make an entry link, or its Cpi is not a price. Undefined when it can.
   */
  readonly unusable: (survey: Survey) => UnusableSurvey | undefined;
}

/**
 * What every replica's matcher knows beyond the inventory: survey groups, re-contact lists,
 * surveys it cannot route to, and the evidence yield ranking learns from. Read from the loop
 * store (so every replica ranks and excludes alike), applied to the matcher as surveys enter it
 * and whenever the store's data moved; a matcher rebuilt from scratch gets all of it again.
 */
export class RoutingFacts {
  readonly #settings: RoutingFactsSettings;
  #data: RoutingData = { version: -1, groups: new Map(), recontact: new Map(), stats: new Map(), fetches: [] };
  #evidence = new Map<number, SurveyYieldCounts>();
  readonly #traits = new Map<number, SurveyTraits>();
  readonly #unusable = new Map<number, UnusableSurvey>();
  #recontactTypes = new Set<number>();
  /** Whether the StudyTypes collection was read (or is known to be unavailable): until then no study type is known not to be re-contact. */
  #studyTypesKnown = false;
  #missingGroups = new Set<number>();
  /** Surveys whose groups were fetched at least once (read or not): a grouped survey not among them is held out. */
  #groupsFetched = new Set<number>();
  /** Surveys the matcher was last told to hold out for want of their groups, or of the study types. */
  readonly #heldForGroups = new Set<number>();
  readonly #heldForStudyType = new Set<number>();
  /** Surveys that entered or whose traits changed since the refresher last asked: their data is fetched at once. */
  #changed = new Set<number>();

  constructor(settings: RoutingFactsSettings) {
    this.#settings = settings;
    this.#recontactTypes = new Set(settings.recontactStudyTypes);
  }

  /** The traits of the live surveys, for the refresher. */
  get traits(): ReadonlyMap<number, SurveyTraits> {
    return this.#traits;
  }

  /** The routing data last read. */
  get data(): RoutingData {
    return this.#data;
  }

  /** Surveys the service cannot route to (their URL cannot make an entry link, their Cpi is not a price), with the reason. */
  get unusable(): ReadonlyMap<number, UnusableSurvey> {
    return this.#unusable;
  }

  /** Whether a survey is a re-contact study (its study type is one). */
  isRecontactStudy(studyTypeId: number | null): boolean {
    return studyTypeId !== null && this.#recontactTypes.has(studyTypeId);
  }

  /** Re-contact study types named by the StudyTypes collection (`re-?contact` in the name), besides the configured ones. */
  setRecontactStudyTypes(fromCollection: Iterable<number>): void {
    this.#recontactTypes = new Set([...this.#settings.recontactStudyTypes, ...fromCollection]);
    this.#studyTypesKnown = true;
  }

  /** Whether the re-contact study types are known (the StudyTypes collection read, or known to be unavailable). */
  get studyTypesKnown(): boolean {
    return this.#studyTypesKnown;
  }

  /**
   * Live surveys the matcher holds out until their routing data arrives: grouped surveys whose
   * groups were never fetched, and, until the study types are known, every survey with a study
   * type not configured as re-contact. As last applied to the matcher, so 0 means it routes them.
   */
  get pending(): { readonly groups: number; readonly studyTypes: number } {
    return { groups: this.#heldForGroups.size, studyTypes: this.#heldForStudyType.size };
  }

  /** A survey entered (or changed in) the matcher: note its traits and give the matcher what is known of it. */
  surveyApplied(matcher: SurveyMatcher, survey: Survey): void {
    const id = survey.SurveyId;
    const traits = {
      hasGroups: survey.Has_Survey_Groups,
      studyTypeId: typeof survey.StudyTypeId === "number" ? survey.StudyTypeId : null,
    };
    const before = this.#traits.get(id);
    if (before?.hasGroups !== traits.hasGroups || before.studyTypeId !== traits.studyTypeId) this.#changed.add(id);
    this.#traits.set(id, traits);
    const unusable = this.#settings.unusable(survey);
    if (unusable === undefined) this.#unusable.delete(id);
    else this.#unusable.set(id, unusable);
    this.#applyOne(matcher, id);
  }

  /** The surveys that entered or changed traits since the last call (a survey leaving its groups flips `Has_Survey_Groups`). */
  takeChanged(): number[] {
    const changed = [...this.#changed];
    this.#changed.clear();
    return changed;
  }

  /** A survey left the matcher. */
  surveyRemoved(surveyId: number): void {
    this.#traits.delete(surveyId);
    this.#unusable.delete(surveyId);
    this.#heldForGroups.delete(surveyId);
    this.#heldForStudyType.delete(surveyId);
  }

  /** Takes newly read routing data and yield counts, and gives every live survey of the matcher its facts. */
  update(
    matcher: SurveyMatcher,
    data: RoutingData | undefined,
    counts: readonly SurveyYieldCounts[] | undefined,
  ): void {
    if (data !== undefined) {
      this.#data = data;
      this.#missingGroups = new Set(
        data.fetches.filter((fetch) => fetch.kind === "groups" && fetch.status !== "ok").map((fetch) => fetch.surveyId),
      );
      this.#groupsFetched = new Set(
        data.fetches.filter((fetch) => fetch.kind === "groups").map((fetch) => fetch.surveyId),
      );
    }
    if (counts !== undefined) this.#evidence = new Map(counts.map((row) => [row.surveyId, row]));
    for (const id of this.#traits.keys()) this.#applyOne(matcher, id);
  }

  #applyOne(matcher: SurveyMatcher, surveyId: number): void {
    const traits = this.#traits.get(surveyId);
    if (traits === undefined) return;
    matcher.setSurveyGroups(surveyId, this.#data.groups.get(surveyId) ?? []);
    if (this.isRecontactStudy(traits.studyTypeId))
      matcher.setRecontact(surveyId, this.#data.recontact.get(surveyId) ?? "unreadable");
    else matcher.setRecontact(surveyId, undefined);
    const pending = { studyType: this.#studyTypePending(traits), groups: this.#groupsPending(surveyId, traits) };
    // What `pending` reports: what the matcher was told, not what the facts alone would say.
    markIf(this.#heldForStudyType, surveyId, pending.studyType);
    markIf(this.#heldForGroups, surveyId, pending.groups);
    matcher.setUnroutable(surveyId, this.#unroutableReason(surveyId, traits, pending));
    matcher.setYieldEvidence(surveyId, this.yieldEvidence(surveyId));
  }

  /*
   * Not knowing is not the same as knowing there is nothing. A survey whose groups were never
   * fetched (new, or just flagged `Has_Survey_Groups`) or whose study type may be a re-contact
   * one waits, out of routing, for the refresh that follows the cycle that brought it: a few
   * seconds of a new survey against an entry the buyer rejects. A fetch that failed is another
   * matter (SYNC_MISSING_GROUPS; a re-contact list that cannot be read keeps its study out).
   */
  #groupsPending(surveyId: number, traits: SurveyTraits): boolean {
    return traits.hasGroups && !this.#groupsFetched.has(surveyId);
  }

  #studyTypePending(traits: SurveyTraits): boolean {
    return !this.#studyTypesKnown && traits.studyTypeId !== null && !this.#recontactTypes.has(traits.studyTypeId);
  }

  #unroutableReason(
    surveyId: number,
    traits: SurveyTraits,
    pending: { readonly studyType: boolean; readonly groups: boolean },
  ): string | undefined {
    const unusable = this.#unusable.get(surveyId);
    if (unusable !== undefined) return unusable.message;
    if (pending.studyType)
      return "whether its study type is a re-contact one is not known yet (the StudyTypes collection has not been read): held out until it is";
    if (pending.groups)
      return "its survey groups have not been read yet: held out until the refresh after the cycle that brought it";
    if (
      this.#settings.missingGroups === "exclude" &&
      traits.hasGroups &&
      (this.#missingGroups.has(surveyId) || !this.#data.groups.has(surveyId))
    ) {
      return "its survey groups could not be read, and SYNC_MISSING_GROUPS=exclude keeps such surveys out";
    }
    return undefined;
  }

  /** What yield knows of a survey's outcomes (the store's counts, the marketplace's conversion), as the matcher was given it. */
  yieldEvidence(surveyId: number): YieldEvidence | undefined {
    const counts = this.#evidence.get(surveyId);
    const conversion = this.#data.stats.get(surveyId)?.conversion ?? null;
    if (counts === undefined && conversion === null) return undefined;
    return {
      decided: counts?.decided ?? 0,
      completes: Math.min(counts?.completes ?? 0, counts?.decided ?? 0),
      ...(conversion === null ? {} : { marketplaceConversion: Math.min(1, Math.max(0, conversion)) }),
      ...(counts?.cutoffReachedAt === null || counts?.cutoffReachedAt === undefined
        ? {}
        : { cutoffReachedAt: counts.cutoffReachedAt }),
    };
  }
}

function markIf(set: Set<number>, id: number, marked: boolean): void {
  if (marked) set.add(id);
  else set.delete(id);
}
