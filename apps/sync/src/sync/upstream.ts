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

/** The live list as one Get Surveys returned it: the valid surveys, and the malformed items beside them. */
export interface LiveSurveyList {
  readonly surveys: readonly Survey[];
  readonly invalid: readonly InvalidItem[];
}

/**
 * What the cycle asks of the Supplier Data Service: exactly the operations it uses. The
 * production implementation is `createClientUpstream` (on `@sds/client`); keeping the cycle
 * behind this seam keeps it independent of the client's wider surface.
 */
export interface Upstream {
  listSurveys(signal: AbortSignal): Promise<LiveSurveyList>;
  qualifications(surveyId: number, signal: AbortSignal): Promise<readonly SurveyQualification[]>;
  quotas(surveyId: number, signal: AbortSignal): Promise<readonly SurveyQuota[]>;
  /** The body of one reference collection, as received. */
  collection(name: CollectionName, signal: AbortSignal): Promise<unknown>;
}
