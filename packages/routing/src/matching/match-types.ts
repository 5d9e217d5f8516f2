import type { Device, Survey, SurveyQualification } from "@sds/schemas";

/** The fields of a survey that matching reads. Any richer survey type (such as `Survey`) fits. */
export type MatchableSurvey = Pick<Survey, "SurveyId" | "Cpi" | "Ir" | "LanguageId" | "DesktopAllowed" | "MobileAllowed" | "TabletAllowed">;

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
}

/** The surveys a respondent qualifies for, best first. */
export interface MatchResult {
  /** The `SurveyId`s of at most `limit` surveys, ordered by `Cpi × Ir / 100` descending, then `SurveyId` ascending. */
  readonly surveyIds: readonly number[];
  /** How many surveys the respondent qualifies for in all (before `limit`). */
  readonly eligible: number;
}

/** Why one survey is out for one respondent. Each carries a sentence in `message`. */
export type ExclusionReason =
  | { readonly kind: "not-live"; readonly message: string }
  | { readonly kind: "not-stored"; readonly missing: readonly ("qualifications" | "quotas")[]; readonly message: string }
  | { readonly kind: "language"; readonly languageId: number; readonly requested: number; readonly message: string }
  | { readonly kind: "device"; readonly device: Device; readonly allowed: readonly Device[]; readonly message: string }
  | {
      readonly kind: "qualification";
      readonly qualificationId: number;
      readonly optionCodes: readonly string[];
      readonly answers: readonly string[];
      readonly message: string;
    }
  | { readonly kind: "quota"; readonly quotaId: number; readonly remaining: number; readonly message: string };

/** What {@link SurveyMatcher.explain} says about one survey and one respondent. */
export interface Explanation {
  readonly surveyId: number;
  /** Whether the respondent qualifies (`reasons` is then empty). */
  readonly eligible: boolean;
  /** Every reason the survey is out, in the order of the rules. */
  readonly reasons: readonly ExclusionReason[];
}
