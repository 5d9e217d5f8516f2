import type { InvalidItem, Survey, SurveyQualification, SurveyQuota } from "@sds/schemas";

/** The reference collections sds-sync keeps, by the name they are stored and served under. */
export const collectionNames = [
  "languages",
  "industries",
  "studyTypes",
  "surveyStatuses",
  "qualificationCategories",
  "qualificationCategoryTypes",
  "qualificationTypes",
  "qualifications",
] as const;
/** One of {@link collectionNames}. */
export type CollectionName = (typeof collectionNames)[number];

/**
 * One entry of the live list as Get Surveys streams it in: a valid survey, or a malformed item;
 * with the item's JSON text as received (`json`), which the cycle hashes and measures instead of
 * serialising each survey again.
 */
export type LiveListEntry = (
  | { readonly survey: Survey; readonly invalid?: undefined }
  | { readonly survey?: undefined; readonly invalid: InvalidItem }
) & { readonly json: string };

/**
 * What the cycle asks of the Supplier Data Service: exactly the operations it uses. The
 * production implementation is `createClientUpstream` (on `@sds/client`); keeping the cycle
 * behind this seam keeps it independent of the client's wider surface.
 */
export interface Upstream {
  /**
   * The live list, entry by entry as the body arrives (one Get Surveys). The iteration throws
   * when the list fails, possibly after entries were yielded (a body cut short, or `hasError`
   * after the list): nothing may be committed before it completes.
   */
  liveSurveys(signal: AbortSignal): AsyncIterable<LiveListEntry>;
  qualifications(surveyId: number, signal: AbortSignal): Promise<readonly SurveyQualification[]>;
  quotas(surveyId: number, signal: AbortSignal): Promise<readonly SurveyQuota[]>;
  /** The body of one reference collection, as received. */
  collection(name: CollectionName, signal: AbortSignal): Promise<unknown>;
}
