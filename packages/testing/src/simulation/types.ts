import type { Device, Survey, SurveyQualification, SurveyQuota } from "@sds/schemas";
import type { FakeSupplierInit } from "../fake/types.ts";

/** How a simulated entry ends: the simulation draws `complete` from the survey's hidden conversion, else `terminate` or `overquota`. */
export type SimulatedOutcome = "complete" | "terminate" | "overquota";

/** Options of {@link createMarketplaceSimulation}. */
export interface MarketplaceSimulationOptions {
  /** Seed of everything: surveys, hidden conversions, respondents and outcomes. @default 1 */
  readonly seed?: number;
  /** Live surveys (1 to 5,000). @default 200 */
  readonly surveys?: number;
  /** Respondents (1 to 1,000,000). @default 5000 */
  readonly respondents?: number;
  /** First `SurveyId`. @default 100001 */
  readonly firstSurveyId?: number;
  /**
   * Spread of the hidden conversion around `Ir / 100`: the σ of the log-normal factor (0: the
   * conversion is exactly `Ir / 100`, which `Ir`-based ranking then knows). @default 0.7
   */
  readonly conversionSpread?: number;
  /** Share of the entries that do not complete which end in `overquota` rather than `terminate` (0..1). @default 0.2 */
  readonly overquotaShare?: number;
}

/** One survey of a simulation: what the upstream publishes, and what only the simulation knows. */
export interface SimulatedSurvey {
  /** The survey as Get Surveys lists it. */
  readonly survey: Survey;
  /** Its qualification records. */
  readonly qualifications: readonly SurveyQualification[];
  /** Its quotas. */
  readonly quotas: readonly SurveyQuota[];
  /**
   * The probability that an eligible respondent completes it: `Ir / 100` times a log-normal
   * factor, clamped to [0, 1]. Hidden: no router but the oracle may read it.
   */
  readonly trueConversion: number;
}

/** One simulated respondent, in the shape a match request takes. */
export interface SimulatedRespondent {
  /** Position in the run, from 0. */
  readonly index: number;
  /** A stable id, such as `"r-000042"`: usable as the entry's uid. */
  readonly id: string;
  /** `QualificationId` (as a string) → the option codes they gave; an age is a number as text. */
  readonly answers: Readonly<Record<string, readonly string[]>>;
  readonly languageId: number;
  readonly device: Device;
}

/** A seeded marketplace: surveys with hidden conversions, and respondents to route to them. */
export interface MarketplaceSimulation {
  readonly seed: number;
  /** The surveys, ordered by `SurveyId`. */
  readonly surveys: readonly SimulatedSurvey[];
  /** The respondents, in the order {@link runSimulation} sends them. */
  readonly respondents: readonly SimulatedRespondent[];
  /** See {@link MarketplaceSimulationOptions.overquotaShare}. */
  readonly overquotaShare: number;
  /** The survey with this id, or `undefined`. */
  survey(surveyId: number): SimulatedSurvey | undefined;
  /**
   * The surveys this respondent qualifies for (language, device, qualifications, open quotas:
   * the rules of `@sds/routing`'s `SurveyMatcher`), ordered by `Cpi × Ir / 100`, then `SurveyId`.
   */
  eligibleSurveyIds(respondent: SimulatedRespondent): readonly number[];
  /**
   * A supplier of the fake Supplier Data Service that publishes exactly these surveys, with their
   * qualifications and quotas, so that a system under test can sync them.
   *
   * @example
   * ```ts
   * const api = createFakeSupplierApi({ seed: 1, suppliers: [simulation.supplier({ supplierId: 1001, apiKey: "k" })] });
   * ```
   */
  supplier(init: Omit<FakeSupplierInit, "surveys" | "closedSurveys">): FakeSupplierInit;
}

/** What an entry gave back: the token the outcome will be reported for, and the link. */
export interface SimulatedEntry {
  readonly token: string;
  readonly link: string;
}

/**
 * The system under test, as the simulation drives it. Over HTTP in a bench: `match` asks the
 * router for surveys, `enter` issues an entry link, `report` delivers the outcome callback.
 */
export interface SimulationRouter {
  /** The surveys to offer, best first (only the first is entered), one `SurveyId`, or none. */
  match(respondent: SimulatedRespondent): Promise<readonly number[] | number | undefined>;
  /** Sends the respondent into the survey: returns the entry's token and link. */
  enter(surveyId: number, respondent: SimulatedRespondent): Promise<SimulatedEntry>;
  /** Reports how the entry of `token` ended (an S2S callback, in a bench). */
  report(token: string, outcome: SimulatedOutcome): Promise<void>;
}

/** What happened to one survey during a run. */
export interface SimulatedSurveyResult {
  readonly surveyId: number;
  readonly entries: number;
  readonly completes: number;
  /** `Cpi` × completes. */
  readonly revenue: number;
}

/** The totals of one run of {@link runSimulation}. */
export interface SimulationResult {
  readonly respondents: number;
  /** Respondents the router sent into a survey. */
  readonly entries: number;
  /** Respondents the router had no survey for. */
  readonly unrouted: number;
  /** Entries into a survey the respondent does not qualify for (or an unknown one): they end in `terminate`. */
  readonly ineligibleEntries: number;
  readonly completes: number;
  readonly terminates: number;
  readonly overquotas: number;
  /** Sum of the `Cpi` of the completed entries. */
  readonly revenue: number;
  /** `revenue / respondents`: the figure policies are compared on. */
  readonly revenuePerRespondent: number;
  /** Per survey entered, ordered by `SurveyId`. */
  readonly surveys: readonly SimulatedSurveyResult[];
}

/** Options of {@link runSimulation}. */
export interface RunSimulationOptions {
  /** Respondents in flight at once; the result does not depend on it (each outcome is drawn from the seed and the respondent). @default 1 */
  readonly concurrency?: number;
  /** Stops the run: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}
