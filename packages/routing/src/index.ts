/**
 * @sds/routing: the pure parts of the respondent loop. Signs and verifies links (Lucid/Cint
 * Fulcrum's HMAC scheme by default, configurable where the spec is silent), builds entry links
 * from a survey's `SurveyUrl`, and matches respondents to surveys in memory.
 *
 * @example
 * ```ts
 * import { SurveyMatcher, buildEntryLink, verifySignedUrl } from "@sds/routing";
 * ```
 */
export {
  RoutingError,
  UnfilledPlaceholderError,
  UnknownAlgorithmError,
  UnsafeSurveyUrlError,
  WeakKeyError,
  isRoutingError,
  type RoutingErrorName,
  type UnsafeSurveyUrlReason,
} from "./errors.ts";
export { digestLengths, hashAlgorithms, parseHashAlgorithm, type HashAlgorithm } from "./hash-algorithm.ts";
export {
  defaultSignatureScheme,
  digestEncodings,
  encryptionSigning,
  MIN_KEY_LENGTH,
  resolveSignatureScheme,
  type DigestEncoding,
  type EncryptionSigning,
  type SignatureScheme,
  type SignatureSchemeOptions,
  type SigningMethod,
} from "./signature-scheme.ts";
export { signUrl } from "./sign-url.ts";
export {
  verifySignedRequest,
  verifySignedUrl,
  type SignedRequest,
  type VerificationFailureReason,
  type VerificationResult,
} from "./verify-signed-url.ts";
export { calibrate, type CalibrationResult } from "./calibrate.ts";
export {
  MIN_START_LINK_SECRET_LENGTH,
  signStartLink,
  verifyStartLink,
  type StartLink,
  type StartLinkFailureReason,
  type StartLinkInput,
  type StartLinkVerdict,
} from "./start-link.ts";
export {
  buildEntryLink,
  defaultEntryPlaceholders,
  entryLinkProblem,
  fillPlaceholders,
  type EntryLinkInput,
  type EntryLinkOptions,
  type EntryLinkProblem,
  type EntryLinkProblemCode,
  type EntryLinkValue,
} from "./entry-link.ts";
export {
  SurveyMatcher,
  type RespondentExclusions,
  type SurveyMatcherOptions,
  type SurveyTargeting,
} from "./matching/survey-matcher.ts";
export type { YieldOptions } from "./matching/yield-ranker.ts";
export { expectedEarnings } from "./matching/compiled-survey.ts";
export {
  DEFAULT_MATCH_LIMIT,
  MAX_MATCH_LIMIT,
  type ExclusionReason,
  type Explanation,
  type MatchableSurvey,
  type MatchOrder,
  type MatchQualification,
  type MatchRequest,
  type MatchResult,
  type YieldExplanation,
} from "./matching/match-types.ts";
export type {
  EntryOutcome,
  PastEntry,
  RecentActivity,
  Respondent,
  RespondentCapKind,
  RoutingPolicy,
} from "./respondent/respondent-types.ts";
export { CAP_WINDOW_MS } from "./respondent/routing-policy.ts";
export type { YieldEvidence } from "./yield/yield-evidence.ts";
export {
  conversionPosterior,
  conversionPrior,
  DEFAULT_PRIOR_STRENGTH,
  posteriorMean,
  PRIOR_MEAN_FLOOR,
  type BetaParameters,
  type ConversionPrior,
} from "./yield/conversion-estimate.ts";
export { sampleBeta, sampleGamma } from "./yield/beta-sampling.ts";
export { createSeededRandom } from "./yield/seeded-random.ts";
export {
  DEFAULT_YIELD_CUTOFF,
  heldOutUntil,
  isHeldOut,
  reachesYieldCutoff,
  recordOutcome,
  type YieldCutoff,
  type YieldTally,
  type YieldOutcome,
} from "./yield/yield-cutoff.ts";
export { cpiCents, loiMinutes } from "./session/cents.ts";
export {
  SessionInventory,
  type HeldSessionSurvey,
  type SessionInventoryOptions,
  type SessionSurvey,
} from "./session/session-inventory.ts";
export {
  nextSessionStep,
  sessionDecisionSettings,
  sessionEnd,
  type SessionDecisionSettings,
} from "./session/next-step.ts";
export { bestOrder, type OrderItem, type SessionOrder } from "./session/survey-order.ts";
export type {
  AttemptReturn,
  DecisionExplanation,
  QuestionEstimate,
  SessionAttempt,
  SessionDecision,
  SessionDecisionOptions,
  SessionDoneReason,
  SessionQuestion,
  SessionSituation,
  SurveyEstimate,
} from "./session/session-types.ts";
