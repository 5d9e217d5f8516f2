/**
 * @sds/testing: a spec-faithful fake of the Supplier Data Service (in-process and over HTTP,
 * with control routes and fault injection), deterministic data factories, reference fixtures
 * and a one-call sandbox server.
 *
 * @example
 * ```ts
 * import { createFakeSupplierApi } from "@sds/testing";
 *
 * const api = createFakeSupplierApi({ seed: 7 });
 * const server = await api.listen(); // http://127.0.0.1:<port>/api/v1
 * // … point a client at server.baseUrl with api.keys[0].apiKey …
 * await api.close();
 * ```
 */

// The fake service.
export { createFakeSupplierApi } from "./fake/create-fake-supplier-api.ts";
export {
  API_BASE_PATH,
  API_KEY_HEADER,
  CONTROL_PREFIX,
  DEFAULT_API_KEY,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_SUPPLIER_ID,
  fakeErrorCodes,
  type FakeErrorCode,
} from "./fake/constants.ts";
export type {
  Clock,
  FakeServer,
  FakeSupplierApi,
  FakeSupplierApiOptions,
  FakeSupplierInit,
  FakeSurveyRecord,
  FetchFunction,
  ListenOptions,
  QualificationInit,
  RecontactRespondentInit,
  RequestLogEntry,
  ScopeStatsInit,
  SupplierAccountOverrides,
  SupplierKey,
  SurveyInit,
  SurveyPatch,
  SurveyStatsInit,
  SurveyStatusFilter,
} from "./fake/types.ts";
export type {
  ActiveFault,
  ConnectionResetFault,
  EnvelopeErrorFault,
  FaultController,
  FaultKind,
  FaultSpec,
  FaultTarget,
  LatencyFault,
  MalformedJsonFault,
  StatusFault,
  TruncatedJsonFault,
} from "./fake/faults.ts";

// The hostile upstream.
export { createHostileUpstream, type HostileUpstream } from "./hostile/create-hostile-upstream.ts";
export { outOfRangeSurveyIds } from "./hostile/scenarios.ts";
export type {
  DripScenario,
  DuplicateIdsScenario,
  EmptyListScenario,
  ErrorAtEndScenario,
  HangScenario,
  HostileScenario,
  HostileScenarioKind,
  HtmlBodyScenario,
  MalformedBodyKind,
  MalformedRecontactRespondentsScenario,
  MalformedSurveyGroupsScenario,
  OutOfRangeIdsScenario,
  OversizeFieldScenario,
  RateLimitStormScenario,
  TruncatedBodyScenario,
  UnauthorizedMidRunScenario,
  WrongTypesScenario,
} from "./hostile/scenarios.ts";

// The marketplace side of the respondent loop.
export { createFakeMarketplace } from "./marketplace/create-fake-marketplace.ts";
export type {
  EntryResult,
  FakeMarketplace,
  FakeMarketplaceOptions,
  MarketplaceServer,
  RespondentOutcome,
  S2sAttempt,
  S2sDelivery,
} from "./marketplace/types.ts";

// The hostile marketplace: attacks on an S2S outcome receiver, and hostile survey URLs.
export { createHostileMarketplace } from "./marketplace/create-hostile-marketplace.ts";
export {
  hostileSurveyInits,
  hostileSurveyUrls,
  type HostileSurveyOptions,
  type HostileSurveyUrlKind,
} from "./marketplace/hostile-survey-urls.ts";
export type {
  CallbackTarget,
  HostileCallback,
  HostileMarketplace,
  HostileMarketplaceOptions,
  HostileMarketplaceSigning,
  HostileRequest,
  HostileResponse,
  ReplayTarget,
} from "./marketplace/hostile-types.ts";

// The seeded marketplace simulation (routing policies measured against an oracle).
export { createMarketplaceSimulation } from "./simulation/create-marketplace-simulation.ts";
export { runSimulation } from "./simulation/run-simulation.ts";
export { oracleRouter, policyRouter, randomRouter, type SurveyScore } from "./simulation/routers.ts";
export { drawOutcome, hiddenConversion, type HiddenConversionOptions } from "./simulation/hidden-conversion.ts";
export {
  catalogueQuestionIds,
  endEntry,
  meetsQualifications,
  SCREENER_MINUTES,
  sessionRespondents,
  type SessionEntryResult,
  type SessionRespondent,
} from "./simulation/session-simulation.ts";
export type {
  MarketplaceSimulation,
  MarketplaceSimulationOptions,
  RunSimulationOptions,
  SimulatedEntry,
  SimulatedOutcome,
  SimulatedRespondent,
  SimulatedSurvey,
  SimulatedSurveyResult,
  SimulationResult,
  SimulationRouter,
} from "./simulation/types.ts";

// The sandbox server.
export { startSandbox } from "./sandbox.ts";
export type { Sandbox, SandboxOptions } from "./sandbox.ts";

// Data factories.
export { createSeededRandom, deriveSeed, type SeededRandom } from "./random.ts";
export {
  FACTORY_REFERENCE_TIME,
  buildSurvey,
  buildSurveys,
  createSurveyFactory,
  type SurveyFactory,
} from "./factories/survey.ts";
export { buildQualifications } from "./factories/qualifications.ts";
export {
  buildQuotas,
  type GeneratedQuota,
  type GeneratedQuotaCondition,
  type QuotaOptions,
} from "./factories/quotas.ts";
export { buildSurveyStats, type GeneratedScopeStats, type GeneratedSurveyStats } from "./factories/survey-stats.ts";
export { buildSurveyGroups, type GeneratedSurveyGroup, type SurveyGroupOptions } from "./factories/survey-groups.ts";
export { buildRecontactRespondents, type GeneratedRecontactRespondent } from "./factories/recontact-respondents.ts";
export { buildSupplierAccount, buildUrlSettings, type SupplierAccountOptions } from "./factories/account.ts";
export type { SeedOptions, SurveyFactoryOptions } from "./factories/types.ts";

// Reference fixtures.
export { languages, type LanguageFixture } from "./fixtures/languages.ts";
export {
  industries,
  qualificationCategories,
  qualificationCategoryTypes,
  qualificationTypes,
  RECONTACT_STUDY_TYPE_ID,
  studyTypes,
  surveyStatuses,
  type CollectionRecord,
} from "./fixtures/collections.ts";
export {
  qualificationCatalogue,
  type CatalogueOption,
  type CatalogueQualification,
} from "./fixtures/qualification-catalogue.ts";
export { qualificationDetail } from "./fixtures/qualification-detail.ts";
