import { z } from "zod";

/*
 * The bodies of the inventory read API. Objects are loose where the service may add fields
 * without breaking a reader.
 */

/** A stored survey with its sync metadata. */
export const StoredSurvey = z.looseObject({
  id: z.int(),
  status: z.enum(["live", "closed"]),
  closedAt: z.string().nullable(),
  firstSeenAt: z.string(),
  changedAt: z.string(),
  needsRefetch: z.boolean(),
  survey: z.record(z.string(), z.unknown()).describe("The upstream Survey record as last received."),
});
/** A stored survey with its sync metadata. */
export type StoredSurvey = z.output<typeof StoredSurvey>;

/** `GET /v1/surveys/{id}`. */
export const StoredSurveyDetail = StoredSurvey.extend({
  qualifications: z.array(z.unknown()).describe("The upstream SurveyQualification records."),
  quotas: z.array(z.unknown()).describe("The upstream SurveyQuota records."),
});
/** `GET /v1/surveys/{id}`. */
export type StoredSurveyDetail = z.output<typeof StoredSurveyDetail>;

/** `GET /v1/surveys`. */
export const SurveyPage = z.object({
  surveys: z.array(StoredSurvey),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last."),
  sequence: z.int().describe("The change-feed sequence this page reflects at least: follow /v1/changes?after=<it>."),
});
/** `GET /v1/surveys`. */
export type SurveyPage = z.output<typeof SurveyPage>;

/** `GET /v1/collections`. */
export const CollectionList = z.object({
  collections: z.array(z.looseObject({ name: z.string(), fetchedAt: z.string(), body: z.unknown() })),
});
/** `GET /v1/collections`. */
export type CollectionList = z.output<typeof CollectionList>;
