/**
 * @sds/sync-client: sds-sync's HTTP contract as zod schemas (every route's request and
 * answer, the rules of its loop: text, outcome kinds, batch limits) and a typed client of its
 * API on ky, with `@sds/client`'s conventions: typed errors, retries, timeouts.
 */
export { createSyncClient, SyncClient } from "./client.ts";
export type { SyncClientOptions, SyncRequestOptions, SyncRetryOptions, SyncValidationMode } from "./client-options.ts";
export type {
  SyncClientHooks,
  SyncRequestErrorEvent,
  SyncRequestEvent,
  SyncRequestEventBase,
  SyncResponseEvent,
  SyncRetryEvent,
} from "./hooks.ts";
export { SYNC_TOKEN_ENV, SYNC_URL_ENV } from "./internal/resolve-options.ts";
export { DEFAULT_FOLLOW_WAIT_SECONDS, type FollowParams } from "./internal/follow-feed.ts";
export { formatMoney } from "./money.ts";
export { EntryLinks, type IssuedEntryLink } from "./resources/entry-links.ts";
export { Outcomes, type ReconcileOptions } from "./resources/outcomes.ts";
export { Respondents } from "./resources/respondents.ts";
export { Sessions, type SessionGetParams } from "./resources/sessions.ts";
export { Surveys, type SurveyListParams } from "./resources/surveys.ts";
export { Changes } from "./resources/changes.ts";
export { Cycles } from "./resources/cycles.ts";
export { Events } from "./resources/events.ts";

export {
  DEFAULT_OUTCOME_TOKEN_PARAMETER,
  OUTCOME_TOKEN_PLACEHOLDER,
  syncOutcomeUrls,
  type OutcomeUrlFields,
  type SyncOutcomeRoute,
} from "./account-outcome-urls.ts";

// The contract: one schema per body, beside its type.
export { LoopText, LoopTextOrEmpty, loopTextProblem, MAX_LOOP_TEXT } from "./schemas/loop-text.ts";
export {
  isOutcomeKind,
  outcomeKinds,
  outcomeSources,
  parseOutcomeKind,
  type OutcomeKind,
  type OutcomeSource,
} from "./schemas/outcome-kinds.ts";
export { ExclusionReason, MatchBody, MatchExplanation, MatchResult, MAX_ANSWER_OPTIONS } from "./schemas/match.ts";
export { EntryLink, EntryLinkBody } from "./schemas/entry-links.ts";
export {
  MAX_REASON_LENGTH,
  MAX_RECONCILE_BATCH,
  Outcome,
  OutcomePage,
  OutcomeReceipt,
  ReconcileBody,
  Reconciled,
  ReconcileLine,
} from "./schemas/outcomes.ts";
export {
  EARLIEST_ENTERED_AT,
  ENTERED_AT_CLOCK_SKEW_MS,
  enteredAtProblem,
  HistoryBody,
  HistoryEntry,
  HistoryImported,
  IMPORTED_TOKEN_PREFIX,
  MAX_HISTORY_BATCH,
} from "./schemas/history.ts";
export {
  Change,
  ChangePage,
  changeTypes,
  FEED_PAGE,
  FeedQuery,
  MAX_WAIT_SECONDS,
  type ChangeType,
  type FeedQueryParams,
} from "./schemas/feed.ts";
export { CollectionList, StoredSurvey, StoredSurveyDetail, SurveyPage } from "./schemas/inventory.ts";
export { DeviceName, MAX_QUERY_LIST_ITEMS, SURVEY_PAGE, SurveyQuery } from "./schemas/survey-query.ts";
export {
  ClosuresConfirmed,
  ConversionWindowReport,
  ConversionWindows,
  CycleRun,
  HeldClosures,
  LoopStatus,
  RoutingDataReport,
  RunAccepted,
  RunCounts,
  RunSummary,
  STATUS_LIMITS,
  SyncStatus,
} from "./schemas/status.ts";
export { EventSinkStatus, EventsStatus, WebhookResumed } from "./schemas/events.ts";
export { Health, Readiness } from "./schemas/probes.ts";
export {
  GateCode,
  Profile,
  ProfileErased,
  Session,
  SessionAnswers,
  SessionAnswersBody,
  SessionAttempt,
  SessionBody,
  SessionExplanation,
  SessionStep,
} from "./schemas/sessions.ts";
export { ErrorBody } from "./schemas/error-body.ts";

// The error family.
export {
  SyncClientError,
  SyncConfigurationError,
  type SyncClientErrorName,
  type SyncOperationId,
  type SyncRequestContext,
} from "./errors/sync-client-error.ts";
export {
  SyncAbortedError,
  SyncConnectionError,
  SyncRequestValidationError,
  SyncResponseValidationError,
  SyncTimeoutError,
  type SyncValidationIssue,
} from "./errors/request-errors.ts";
export {
  createSyncApiError,
  SyncApiError,
  SyncAuthenticationError,
  SyncBadRequestError,
  SyncConflictError,
  SyncGoneError,
  SyncNotFoundError,
  SyncPermissionDeniedError,
  SyncRateLimitError,
  SyncServerError,
  type SyncApiErrorDetails,
  type SyncApiErrorSubclassName,
} from "./errors/api-errors.ts";
export {
  isSyncAbortedError,
  isSyncApiError,
  isSyncAuthenticationError,
  isSyncBadRequestError,
  isSyncClientError,
  isSyncConfigurationError,
  isSyncConflictError,
  isSyncConnectionError,
  isSyncGoneError,
  isSyncNotFoundError,
  isSyncPermissionDeniedError,
  isSyncRateLimitError,
  isSyncRequestValidationError,
  isSyncResponseValidationError,
  isSyncServerError,
  isSyncTimeoutError,
} from "./errors/guards.ts";
