import type { Device } from "@sds/schemas";

/** How a survey attempt of a session came back: the marketplace's four ends, or a drop (no outcome in time). */
export type AttemptReturn = "complete" | "terminate" | "overquota" | "security" | "drop";

/** One survey the session offered, as the decisions read it. */
export interface SessionAttempt {
  readonly surveyId: number;
  /** How it came back (the return or the S2S outcome, whichever came first); `undefined` while it is awaited. */
  readonly returned?: AttemptReturn | undefined;
}

/** Why a session is done. */
export type SessionDoneReason = "completed" | "no-survey" | "attempts" | "excluded" | "ended" | "expired";

/** A catalogue question a session may ask, in the session's language. */
export interface SessionQuestion {
  readonly qualificationId: number;
  /** The catalogue's `TypeName`, lower-cased (`range` and `numeric` are both numeric). */
  readonly type: "single" | "multi" | "numeric" | "text";
  /** The option codes (empty for numeric and text questions). */
  readonly optionCodes: readonly string[];
}

/** The settings of the session's decisions. */
export interface SessionDecisionOptions {
  /** What one question costs the respondent, in seconds (`SYNC_QUESTION_SECONDS`). @default 8 */
  readonly questionSeconds?: number;
  /** Most surveys one session offers (`SYNC_SESSION_MAX_ATTEMPTS`). @default 3 */
  readonly maxAttempts?: number;
  /**
   * The mean time a respondent is likely to give, in minutes: the chance they are still there
   * after `t` minutes is `exp(-t / patienceMinutes)`. @default 20
   */
  readonly patienceMinutes?: number;
  /** What a screen-out or terminate costs the respondent, in minutes (at most the survey's `Loi`). @default 1 */
  readonly screenOutMinutes?: number;
  /** Surveys that still miss more answers than this are not counted on. @default 2 */
  readonly maxUnknownQuestions?: number;
}

/** Where a session stands, as the decisions read it. */
export interface SessionSituation {
  /** Every answer known (the stored profile and this session's): `QualificationId` as a string → codes. */
  readonly answers: ReadonlyMap<string, readonly string[]>;
  readonly languageId: number;
  readonly device?: Device | undefined;
  /** The surveys offered so far, oldest first. */
  readonly attempts: readonly SessionAttempt[];
  /** Surveys the respondent rules keep out (entered before, groups, re-contact, held out). */
  readonly excluded: ReadonlySet<number>;
  /** The respondent reached a 24-hour cap: no survey at all. */
  readonly capReached?: boolean;
  /** The questions that may be asked (askable in this language, not answered within the profile's lifetime). */
  readonly askable: ReadonlyMap<number, SessionQuestion>;
  /** How often each answer was given to a question in this language (stored profiles); absent or empty: uniform. */
  readonly answerCounts?: (qualificationId: number) => ReadonlyMap<string, number> | undefined;
}

/** A survey as a session's decision weighed it. */
export interface SurveyEstimate {
  readonly surveyId: number;
  readonly cpiCents: number;
  /** Yield's conversion estimate. */
  readonly conversion: number;
  readonly loiMinutes: number;
  /** Expected cents of offering it now: conversion × Cpi × the chance the respondent stays for its Loi. */
  readonly expectedCents: number;
}

/** A question as a session's decision weighed it. */
export interface QuestionEstimate {
  readonly qualificationId: number;
  /** Expected cents of the session with the answer, less without it. */
  readonly gainCents: number;
  /** What its time is worth at the session's expected rate, in cents. */
  readonly costCents: number;
  /** Surveys still open to the respondent that need it. */
  readonly surveys: number;
}

/** What a session does next. */
export type SessionDecision =
  | { readonly kind: "question"; readonly qualificationId: number; readonly explanation: DecisionExplanation }
  /** Offer a survey: `surveys` best first; the first the rules admit when the entry is recorded is offered. */
  | { readonly kind: "survey"; readonly surveys: readonly number[]; readonly explanation: DecisionExplanation }
  /** The latest survey's return is awaited. */
  | { readonly kind: "wait"; readonly surveyId: number }
  | { readonly kind: "done"; readonly reason: SessionDoneReason; readonly explanation?: DecisionExplanation };

/** What a decision rested on (`?explain=1`). */
export interface DecisionExplanation {
  /** Expected cents of the session as it stands (the best order of the attempts left). */
  readonly expectedCents: number;
  /** Expected minutes of that order. */
  readonly expectedMinutes: number;
  readonly attemptsLeft: number;
  /** The questions considered, best gain first (at most 10). */
  readonly questions: readonly QuestionEstimate[];
  /** The surveys the order starts with (at most 10). */
  readonly surveys: readonly SurveyEstimate[];
}
