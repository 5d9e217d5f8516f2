import { z } from "zod";
import { observedEnvelopeShape } from "./envelope.ts";
import { integer } from "./internal/wire.ts";

/*
 * The nine reference collections. Paths and bodies are not in the spec; what is typed here
 * follows what public integrations show (languages, industries, study types, qualification
 * detail) and the same `{ Id, Name }` pattern elsewhere. Unverified, unknown fields kept.
 */

/** A collection id: an integer, though one integration saw strings such as `"3"`. */
export const CollectionId = z.union([integer(), z.string()]);
export type CollectionId = z.infer<typeof CollectionId>;

/** The `{ Id, Name }` record every collection appears to share. */
export const CollectionItem = z.looseObject({
  Id: CollectionId,
  Name: z.string().optional(),
});
export type CollectionItem = z.infer<typeof CollectionItem>;

/** A language, with the country it is spoken in (`"English - United States"`, `"US"`). */
export const Language = z.looseObject({
  Id: CollectionId,
  Name: z.string(),
  CountryCode: z.string().optional(),
});
export type Language = z.infer<typeof Language>;

const collectionResponse = <Key extends string, Item extends z.ZodType>(key: Key, item: Item) =>
  z.looseObject({ ...observedEnvelopeShape, [key]: z.array(item) } as typeof observedEnvelopeShape &
    Record<Key, z.ZodArray<Item>>);

/** Response of the Languages collection. */
export const LanguagesResponse = collectionResponse("Languages", Language);
export type LanguagesResponse = z.infer<typeof LanguagesResponse>;
/** Response of the Industries collection. */
export const IndustriesResponse = collectionResponse("Industries", CollectionItem);
export type IndustriesResponse = z.infer<typeof IndustriesResponse>;
/** Response of the StudyTypes collection. */
export const StudyTypesResponse = collectionResponse("StudyTypes", CollectionItem);
export type StudyTypesResponse = z.infer<typeof StudyTypesResponse>;
/** Response of the SurveyStatuses collection. */
export const SurveyStatusesResponse = collectionResponse("SurveyStatuses", CollectionItem);
export type SurveyStatusesResponse = z.infer<typeof SurveyStatusesResponse>;
/** Response of the QualificationCategories collection. */
export const QualificationCategoriesResponse = collectionResponse("QualificationCategories", CollectionItem);
export type QualificationCategoriesResponse = z.infer<typeof QualificationCategoriesResponse>;
/** Response of the QualificationCategoryTypes collection. */
export const QualificationCategoryTypesResponse = collectionResponse("QualificationCategoryTypes", CollectionItem);
export type QualificationCategoryTypesResponse = z.infer<typeof QualificationCategoryTypesResponse>;
/** Response of the QualificationTypes collection. */
export const QualificationTypesResponse = collectionResponse("QualificationTypes", CollectionItem);
export type QualificationTypesResponse = z.infer<typeof QualificationTypesResponse>;
/** Response of the Qualifications catalogue collection (body not seen; the `{ Id, Name }` pattern is a guess). */
export const QualificationsResponse = collectionResponse("Qualifications", CollectionItem);
export type QualificationsResponse = z.infer<typeof QualificationsResponse>;

/** One answer option of a qualification question. */
export const QualificationOption = z.looseObject({
  OptionCode: z.union([integer(), z.string()]),
  OptionText: z.string(),
});
export type QualificationOption = z.infer<typeof QualificationOption>;

/** A qualification question with its options, in one language. */
export const QualificationDetail = z.looseObject({
  Id: CollectionId,
  Code: z.string().optional(),
  QuestionText: z.string().optional(),
  TypeName: z.string().optional(),
  Options: z.array(QualificationOption).optional(),
});
export type QualificationDetail = z.infer<typeof QualificationDetail>;

/** Response of QualificationDetailById. */
export const QualificationDetailResponse = z.looseObject({
  ...observedEnvelopeShape,
  Qualification: QualificationDetail,
});
export type QualificationDetailResponse = z.infer<typeof QualificationDetailResponse>;
