/**
 * @sds/client: a typed client of the Supplier Data Service on ky — every operation, typed
 * errors, retries, timeouts, concurrency and rate limits, response validation.
 */
export { createClient, SdsClient } from "./client.ts";
/*
 * The types of what the calls take and return, from the contract: a consumer imports them from
 * here and needs no direct dependency on @sds/schemas (openai-node and stripe-node do the same).
 * Type-only, so the schemas' runtime stays out of this entry; the zod schemas themselves are
 * @sds/schemas' to export. `test/public-types.test.ts` fails when one is missing.
 */
export type {
  CollectionId,
  CollectionItem,
  EncryptionSettings,
  Envelope,
  EnvelopeError,
  IndustriesResponse,
  InvalidItem,
  ItemIssue,
  Language,
  LanguagesResponse,
  OperationId,
  QualificationCategoriesResponse,
  QualificationCategoryTypesResponse,
  QualificationDetail,
  QualificationDetailResponse,
  QualificationOption,
  QualificationsResponse,
  QualificationTypesResponse,
  QuotaCondition,
  RecontactRespondent,
  RecontactRespondentsResponse,
  StudyTypesResponse,
  SupplierAccount,
  SupplierAccountResponse,
  Survey,
  SurveyGroup,
  SurveyGroupsResponse,
  SurveyListResponse,
  SurveyQualification,
  SurveyQualificationsResponse,
  SurveyQuota,
  SurveyQuotasResponse,
  SurveyStatsResponse,
  SurveyStatusesResponse,
  UpdateResponse,
  UrlSettings,
  UrlSettingsBody,
} from "@sds/schemas";
export { parseBaseUrl } from "./base-url.ts";
export { operationPathProblem, type OperationPathProblem } from "./operation-path.ts";
export type {
  ClientOptions,
  FetchFunction,
  RateLimitOptions,
  RequestOptions,
  RetryOptions,
  ValidationMode,
} from "./client-options.ts";
export { ApiPromise, type ResponseInfo, type WithResponse } from "./api-promise.ts";
export { systemClock, type Clock } from "./clock.ts";
export type {
  ClientHooks,
  LogMethod,
  Logger,
  RequestErrorEvent,
  RequestEvent,
  RequestEventBase,
  ResponseEvent,
  RetryEvent,
} from "./hooks.ts";
export { Account } from "./resources/account.ts";
export { Surveys, type ItemwiseSurveyList } from "./resources/surveys.ts";
export { Recontacts } from "./resources/recontacts.ts";
export { Collections } from "./resources/collections.ts";
export {
  SurveyStream,
  type StreamedSurvey,
  type SurveyListEnvelope,
  type SurveyStreamResult,
} from "./survey-stream.ts";
export type {
  DetailsProgress,
  ListWithDetailsOptions,
  SurveyDetailsFailure,
  SurveyWithDetails,
  SurveysWithDetails,
} from "./survey-details.ts";
export { SdsError, type RequestContext, type SdsErrorName, type SdsErrorOptions } from "./errors/sds-error.ts";
export { RequestError, type RequestErrorName } from "./errors/request-error.ts";
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  type ApiErrorDetails,
  type ApiErrorSubclassName,
} from "./errors/api-error.ts";
export { ConnectionError, RequestAbortedError, TimeoutError, type TimeoutPhase } from "./errors/transport-errors.ts";
export { RequestValidationError, ResponseValidationError, type ValidationIssue } from "./errors/validation-errors.ts";
export { ConfigurationError } from "./errors/configuration-error.ts";
export { createApiError } from "./errors/create-api-error.ts";
export {
  isApiError,
  isAuthenticationError,
  isBadRequestError,
  isConfigurationError,
  isConnectionError,
  isNotFoundError,
  isPermissionDeniedError,
  isRateLimitError,
  isRequestAbortedError,
  isRequestError,
  isRequestValidationError,
  isResponseValidationError,
  isSdsError,
  isServerError,
  isTimeoutError,
} from "./errors/guards.ts";
