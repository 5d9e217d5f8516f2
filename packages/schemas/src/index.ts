/**
 * @sds/schemas: the contract of the Supplier Data Service as zod 4 schemas and types.
 * Every object keeps unknown fields; {@link strict} makes a schema report them instead.
 */
export { Envelope, EnvelopeError, UpdateResponse, envelopeShape, observedEnvelopeShape } from "./envelope.ts";
export { Survey, SurveyListResponse } from "./survey.ts";
export { SurveyQualification, SurveyQualificationsResponse } from "./qualification.ts";
export {
  EncryptionSettings,
  SupplierAccount,
  SupplierAccountResponse,
  UrlSettings,
  UrlSettingsBody,
  urlSettingsUrlFields,
  type UrlSettingsUrlField,
} from "./account.ts";
export { RedirectUrl, MAX_REDIRECT_URL_LENGTH, isAbsoluteHttpUrl } from "./redirect-url.ts";
export { QuotaCondition, SurveyQuota, SurveyQuotasResponse } from "./quota.ts";
export {
  RecontactRespondent,
  RecontactRespondentsResponse,
  SurveyGroup,
  SurveyGroupsResponse,
  SurveyStatsResponse,
} from "./survey-extras.ts";
export { parseSurveyGroups, type ParsedSurveyGroup, type ParseSurveyGroupsResult } from "./survey-groups-parser.ts";
export {
  parseRecontactRespondents,
  type ParsedRecontactRespondent,
  type ParseRecontactRespondentsResult,
} from "./recontact-respondents-parser.ts";
export {
  parseSurveyStats,
  type ParsedSurveyStats,
  type ParseSurveyStatsResult,
  type SurveyStatsScope,
} from "./survey-stats-parser.ts";
export {
  CollectionId,
  CollectionItem,
  IndustriesResponse,
  Language,
  LanguagesResponse,
  QualificationCategoriesResponse,
  QualificationCategoryTypesResponse,
  QualificationDetail,
  QualificationDetailResponse,
  QualificationOption,
  QualificationsResponse,
  QualificationTypesResponse,
  StudyTypesResponse,
  SurveyStatusesResponse,
} from "./collections.ts";
export {
  operations,
  operationIds,
  expandPath,
  type OperationDefinition,
  type OperationEvidence,
  type OperationId,
} from "./operations.ts";
export { strict } from "./strict.ts";
export {
  parseItemwise,
  parseSurveyList,
  type InvalidItem,
  type ItemIssue,
  type ItemwiseOptions,
  type ItemwiseResult,
} from "./itemwise.ts";
export {
  allowedDevices,
  devices,
  parseDecimal,
  parseWireDate,
  surveyDates,
  surveyNumbers,
  type Device,
  type SurveyDates,
  type SurveyNumbers,
} from "./conversions.ts";
export { MASKED_SECRET, maskAccountSecrets, maskSecret } from "./secrets.ts";
export { buildOpenApiDocument, toComponentSchemas } from "./openapi.ts";
