import type { Device, Survey, SurveyQualification } from "@sds/schemas";
import type { EntryOutcome, Respondent, RespondentCapKind } from "../respondent/respondent-types.ts";

/** The fields of a survey that matching reads. Any richer survey type (such as `Survey`) fits. */
export type MatchableSurvey = Pick<
  Survey,
  "SurveyId" | "Cpi" | "Ir" | "LanguageId" | "DesktopAllowed" | "MobileAllowed" | "TabletAllowed"
>;

/** The fields of a qualification record that matching reads. */
export type MatchQualification = Pick<SurveyQualification, "QualificationId" | "OptionCodes">;

/** The largest `limit` of a match. */
export const MAX_MATCH_LIMIT = 5000;

/** The `limit` of a match when none is given. */
export const DEFAULT_MATCH_LIMIT = 20;

/** One respondent, as matching sees them. */
export interface MatchRequest {
  /**
   * The respondent's answers: `QualificationId` (as a string) → the option codes they gave
   * (numbers as text, such as an age `"30"`, meet range codes). A `Map` or a plain object.
   */
  readonly answers: ReadonlyMap<string, readonly string[]> | Readonly<Record<string, readonly string[]>>;
  /** Only surveys in this language. */
  readonly languageId?: number;
  /** Only surveys that allow this device. */
  readonly device?: Device;
  /** At most this many surveys, 1 to {@link MAX_MATCH_LIMIT}. @default 20 */
  readonly limit?: number;
  /**
   * The respondent by uid, with their earlier entries: the history rules of the matcher's
   * routing policy then apply (already entered, survey groups, 24-hour caps) and re-contact
   * studies admit them when their uid is on the active list. Without it, re-contact studies
   * are out and the history rules do not apply.
   */
  readonly respondent?: Respondent;
  /** The time of the request in epoch milliseconds, for the history rules and the yield cut-off. @default Date.now() */
  readonly now?: number;
  /**
   * How results are ranked: `"earnings"` by `Cpi × Ir / 100`; `"yield"` by `Cpi ×` the
   * survey's conversion as learned from its outcomes (see the matcher's `yield` options).
   * @default "earnings"
   */
  readonly order?: MatchOrder;
  /**
   * Under order `"yield"`: `true` ranks by a draw from each survey's posterior (Thompson
   * sampling: it explores where unsure), `false` by the posterior mean (it only exploits).
   * @default the matcher's `yield.explore` option (true)
   */
  readonly explore?: boolean;
}

/** How a match ranks the surveys a respondent qualifies for. */
export type MatchOrder = "earnings" | "yield";

/** The surveys a respondent qualifies for, best first. */
export interface MatchResult {
  /**
   * The `SurveyId`s of at most `limit` surveys, ordered by score descending, then `SurveyId`
   * ascending. The score is `Cpi × Ir / 100` (order `"earnings"`) or `Cpi ×` a conversion drawn
   * from (or the mean of) the survey's posterior (order `"yield"`).
   */
  readonly surveyIds: readonly number[];
  /** How many surveys the respondent qualifies for in all (before `limit`; under `"yield"`, surveys held out by the cut-off are not counted). */
  readonly eligible: number;
}

/** Why one survey is out for one respondent. Each carries a sentence in `message`. */
export type ExclusionReason =
  | { readonly kind: "not-live"; readonly message: string }
  | {
      readonly kind: "not-stored";
      readonly missing: readonly ("qualifications" | "quotas")[];
      readonly message: string;
    }
  | { readonly kind: "language"; readonly languageId: number; readonly requested: number; readonly message: string }
  | { readonly kind: "device"; readonly device: Device; readonly allowed: readonly Device[]; readonly message: string }
  | {
      readonly kind: "qualification";
      readonly qualificationId: number;
      readonly optionCodes: readonly string[];
      readonly answers: readonly string[];
      readonly message: string;
    }
  | { readonly kind: "quota"; readonly quotaId: number; readonly remaining: number; readonly message: string }
  /** The service marked the survey unroutable (`SurveyMatcher.setUnroutable`), for this reason. */
  | { readonly kind: "unusable-survey-url"; readonly reason: string; readonly message: string }
  /** A re-contact study that does not admit the respondent: no uid, not on the active list, or the list could not be read (`unreadable`). */
  | { readonly kind: "recontact"; readonly unreadable: boolean; readonly message: string }
  /** The respondent entered this survey before, with an outcome after which the policy allows no re-entry (`null`: pending). */
  | {
      readonly kind: "already-entered";
      readonly enteredAt: number;
      readonly outcome: EntryOutcome | null;
      readonly message: string;
    }
  /** The respondent entered survey `surveyId` of group `groupId`, which this survey belongs to as well. */
  | {
      readonly kind: "survey-group";
      readonly groupId: number;
      readonly surveyId: number;
      readonly enteredAt: number;
      readonly outcome: EntryOutcome | null;
      readonly message: string;
    }
  /** The respondent has reached a 24-hour cap: every survey is out. */
  | {
      readonly kind: "respondent-cap";
      readonly cap: RespondentCapKind;
      readonly count: number;
      readonly limit: number;
      readonly message: string;
    }
  /** Under `"yield"`: the survey failed a trial (no complete in its last `cutoff.entries` decided entries) and cools down until `heldUntil`. */
  | { readonly kind: "yield-cutoff"; readonly decided: number; readonly heldUntil: number; readonly message: string };

/** What ranks a survey under order `"yield"`, as {@link SurveyMatcher.explain} reports it. */
export interface YieldExplanation {
  /** The posterior mean of the survey's conversion. */
  readonly estimate: number;
  readonly prior: { readonly mean: number; readonly strength: number; readonly source: "marketplace" | "ir" };
  readonly evidence: { readonly decided: number; readonly completes: number };
  /**
   * The conversion drawn for the survey by the latest `match` of this same request object,
   * when that match sampled it (it skips surveys whose `Cpi` could not reach the results).
   */
  readonly draw?: number;
  /** `Cpi × draw` when drawn, `Cpi × estimate` when the matcher does not explore. */
  readonly score?: number;
}

/** What {@link SurveyMatcher.explain} says about one survey and one respondent. */
export interface Explanation {
  readonly surveyId: number;
  /** Whether the respondent qualifies (`reasons` is then empty). */
  readonly eligible: boolean;
  /** Every reason the survey is out, in the order of the rules. */
  readonly reasons: readonly ExclusionReason[];
  /** Under order `"yield"` (for a held survey): its conversion estimate and what it rests on. */
  readonly yield?: YieldExplanation;
}
