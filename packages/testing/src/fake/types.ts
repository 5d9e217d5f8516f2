import type { OperationId, SupplierAccount, Survey, SurveyQualification, SurveyQuota } from "@sds/schemas";
import type { GeneratedRecontactRespondent } from "../factories/recontact-respondents.ts";
import type { GeneratedSurveyGroup } from "../factories/survey-groups.ts";
import type { GeneratedScopeStats } from "../factories/survey-stats.ts";
import type { FaultController } from "./faults.ts";

/** A function with the signature of the global `fetch`, so it can replace it anywhere. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A clock: returns the current time. Injected so tests are deterministic. */
export type Clock = () => Date | number;

/**
 * What to create a survey from. Everything is optional: missing survey fields come from the
 * seeded survey factory, a missing `SurveyId` is the next free id.
 */
export interface SurveyInit {
  /** Fields of the survey; the rest is generated. */
  readonly survey?: Partial<Survey>;
  /** Live surveys are listed by Get Surveys; closed ones are not (Rule 1). @default true */
  readonly live?: boolean;
  /**
   * The survey's qualification records (`SurveyId` and `LastUpdatedOnUTC` are filled in).
   * Omitted: generated from the qualification catalogue when `Has_Qualifications` is true.
   */
  readonly qualifications?: readonly QualificationInit[];
  /** The survey's quotas. Omitted: generated when `Has_Quotas` is true. */
  readonly quotas?: readonly SurveyQuota[];
  /**
   * Store the survey even when it does not parse with the `Survey` schema, so a client's
   * handling of one malformed survey among good ones can be tested.
   * @default false
   */
  readonly allowInvalid?: boolean;
}

/*
 * `Omit` is not used on the schema types: they carry an index signature (unknown fields are
 * kept), and `Omit` over such a type drops every known field. Keys are picked explicitly.
 */

/** A qualification record as given to the fake; it fills in `SurveyId` and `LastUpdatedOnUTC`. */
export type QualificationInit = Pick<
  SurveyQualification,
  "QualificationId" | "QualificationTypeId" | "OptionIds" | "OptionCodes"
> &
  Partial<Pick<SurveyQualification, "LastUpdatedOnUTC">>;

/**
 * Changes to a survey. `LastUpdatedOnUTC` moves unless the patch sets it; `SurveyId` cannot
 * change (a different one is refused).
 */
export type SurveyPatch = Partial<Survey>;

/** A respondent of a re-contact survey as given to the fake. */
export interface RecontactRespondentInit {
  /** The supplier's respondent id: a non-empty string, unique within the list. */
  readonly PID: string;
  /** Whether the respondent may still enter. @default true */
  readonly IsActive?: boolean;
}

/** Figures of one scope of Get Survey Stats as given to the fake; each non-negative, `SystemConversion` at most 100. */
export type ScopeStatsInit = Partial<GeneratedScopeStats>;

/**
 * What Get Survey Stats serves as `Stats` once set: the scopes given, the figures given, nothing
 * else (`{}` serves a survey with no statistics at all).
 */
export interface SurveyStatsInit {
  /** Every supplier's traffic. */
  readonly Global?: ScopeStatsInit;
  /** The caller's own traffic. */
  readonly Supplier?: ScopeStatsInit;
}

/** Account fields that can be given instead of generated ones (`Id` always follows the supplier id). */
export type SupplierAccountOverrides = Partial<
  Pick<SupplierAccount, "Name" | "Active" | "IncomingEncryption" | "OutgoingEncryption" | "RedirectUrls" | "S2SUrls">
>;

/** One supplier of the fake: its key, its account and its surveys. */
export interface FakeSupplierInit {
  /** Integer id; the account's `Id` is its decimal string and Get Surveys answers it as `SupplierId`. */
  readonly supplierId: number;
  /** The value of the `EQ-PARTNER-ACCESS-KEY` header that authenticates as this supplier. */
  readonly apiKey: string;
  /** @default a generated company name */
  readonly name?: string;
  /** Account fields to use instead of generated ones (`Id` always follows `supplierId`). */
  readonly account?: SupplierAccountOverrides;
  /**
   * The supplier's live surveys: a number to generate that many, or explicit inits.
   * @default 20
   */
  readonly surveys?: number | readonly SurveyInit[];
  /** Closed surveys to generate besides the live ones. @default 0 */
  readonly closedSurveys?: number;
}

/** Options of {@link createFakeSupplierApi}. */
export interface FakeSupplierApiOptions {
  /**
   * The suppliers. @default one supplier, id 1001, key {@link DEFAULT_API_KEY}, 20 live surveys
   */
  readonly suppliers?: readonly FakeSupplierInit[];
  /** Seed of every generated value and of faults drawn by rate. @default 1 */
  readonly seed?: number;
  /** Serve the control routes under `/__sandbox/` over HTTP and in-process. @default false */
  readonly control?: boolean;
  /** The clock that moves `LastUpdatedOnUTC` and stamps the request log. @default () => new Date() */
  readonly now?: Clock;
  /** Largest request body accepted, in bytes; larger bodies get 400. @default 65536 */
  readonly maxBodyBytes?: number;
  /** Entries kept in the request log; the oldest are dropped first. @default 10000 */
  readonly requestLogLimit?: number;
}

/** Options of {@link FakeSupplierApi.listen}. */
export interface ListenOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to bind. @default "127.0.0.1" */
  readonly host?: string;
}

/** A running HTTP server of the fake. */
export interface FakeServer {
  /** The base URL to give a client, ending in `/api/v1`, such as `http://127.0.0.1:40123/api/v1`. */
  readonly baseUrl: string;
  /** Scheme, host and port, such as `http://127.0.0.1:40123` (the control routes hang off it). */
  readonly origin: string;
  /** The port actually bound. */
  readonly port: number;
  /** Stops the server and drops its open connections. */
  close(): Promise<void>;
}

/** One request the fake answered (control routes are not logged). */
export interface RequestLogEntry {
  readonly method: string;
  /** The path after the origin, without the query, such as `/api/v1/surveys`. */
  readonly path: string;
  /** The query string with its `?`, or `""`. */
  readonly query: string;
  /** The operation it was routed to, or `null` for an unknown route. */
  readonly operationId: OperationId | null;
  /** HTTP status answered; `0` when the connection was reset. */
  readonly status: number;
  /** The authenticated supplier, or `null` when the key was missing or wrong. */
  readonly supplierId: number | null;
  /** When it arrived, by the injected clock, as ISO 8601. */
  readonly timestamp: string;
  /** Wall time from arrival to response, including injected latency. */
  readonly durationMs: number;
  /** The kinds of faults that hit it, in order. */
  readonly faults: readonly string[];
  /** Delay added by latency faults, in milliseconds (0 when none hit). */
  readonly injectedLatencyMs: number;
}

/** A survey as the fake holds it. */
export interface FakeSurveyRecord {
  readonly supplierId: number;
  readonly live: boolean;
  readonly survey: Survey;
  readonly qualifications: readonly SurveyQualification[];
  readonly quotas: readonly SurveyQuota[];
  /** The groups the survey belongs to, as Get Survey Groups serves them. */
  readonly surveyGroups: readonly GeneratedSurveyGroup[];
  /** The re-contact list as Get ReContact Respondents serves it (empty unless the study type is Recontact). */
  readonly recontactRespondents: readonly GeneratedRecontactRespondent[];
  /** The statistics as Get Survey Stats serves them in `Stats`. */
  readonly stats: SurveyStatsInit;
}

/** The id and key of one supplier of the fake. */
export interface SupplierKey {
  readonly supplierId: number;
  readonly apiKey: string;
}

/** Which surveys {@link FakeSupplierApi.listSurveys} returns. */
export type SurveyStatusFilter = "live" | "closed" | "all";

/**
 * A fake Supplier Data Service: every operation of `@sds/schemas`' `operations` table under
 * `/api/v1`, in-process through {@link FakeSupplierApi.fetch} and over HTTP through
 * {@link FakeSupplierApi.listen}, with control methods for tests and fault injection.
 */
export interface FakeSupplierApi {
  /**
   * Serves one request in-process, with no socket: a drop-in `fetch` for a client. Relative
   * URLs are not accepted; any origin is (only the path counts).
   *
   * @example
   * ```ts
   * const response = await api.fetch("http://fake.test/api/v1/surveys", { headers: { "EQ-PARTNER-ACCESS-KEY": key } });
   * ```
   */
  readonly fetch: FetchFunction;
  /** Starts an HTTP server on 127.0.0.1 (port 0 by default); may be called more than once. */
  listen(options?: ListenOptions): Promise<FakeServer>;
  /** Closes every server started by {@link FakeSupplierApi.listen}. */
  close(): Promise<void>;
  /** Fault injection. */
  readonly faults: FaultController;
  /** Every supplier's id and API key. */
  readonly keys: readonly SupplierKey[];

  /** The supplier's account as Get Supplier Details answers it. @throws RangeError for an unknown supplier. */
  getAccount(supplierId: number): SupplierAccount;
  /** One survey with its state, or `undefined`. */
  getSurvey(surveyId: number): FakeSurveyRecord | undefined;
  /** A supplier's surveys, ordered by `SurveyId`. @default status "live" */
  listSurveys(supplierId: number, status?: SurveyStatusFilter): Survey[];
  /** Adds a survey to a supplier and returns it. @throws RangeError for an unknown supplier, a taken `SurveyId` or an invalid survey. */
  addSurvey(supplierId: number, init?: SurveyInit): Survey;
  /**
   * Changes fields of a survey; `LastUpdatedOnUTC` moves (unless the patch sets it).
   * `allowInvalid` stores the result even when it no longer parses with the `Survey` schema.
   */
  updateSurvey(surveyId: number, patch: SurveyPatch, options?: { readonly allowInvalid?: boolean }): Survey;
  /** Takes a survey out of Get Surveys; `LastUpdatedOnUTC` moves. Its details stay readable. */
  closeSurvey(surveyId: number): Survey;
  /** Puts a closed survey back into Get Surveys; `LastUpdatedOnUTC` moves. */
  reopenSurvey(surveyId: number): Survey;
  /** Deletes a survey entirely: it becomes unknown (404) everywhere. */
  removeSurvey(surveyId: number): void;
  /** Replaces a survey's qualifications; moves `Qual_LastUpdatedOnUTC` and `LastUpdatedOnUTC`. */
  replaceQualifications(surveyId: number, qualifications: readonly QualificationInit[]): SurveyQualification[];
  /** Replaces a survey's quotas; moves `Quota_LastUpdatedOnUTC` and `LastUpdatedOnUTC`. */
  replaceQuotas(surveyId: number, quotas: readonly SurveyQuota[]): SurveyQuota[];
  /** Every survey group of a supplier, by `SurveyGroupID`. @throws RangeError for an unknown supplier. */
  listSurveyGroups(supplierId: number): GeneratedSurveyGroup[];
  /**
   * Sets the surveys of a group, creating it when new and deleting it when `surveyIds` is
   * empty; returns the group, or `undefined` once deleted. Every survey must exist and belong
   * to the group's supplier. `Has_Survey_Groups` of each survey whose membership changes
   * follows whether it is in a group now (moving `LastUpdatedOnUTC` when it flips); other
   * fields and timestamps stay, as group changes are polled on their own.
   */
  setSurveyGroup(groupId: number, surveyIds: readonly number[]): GeneratedSurveyGroup | undefined;
  /** Moves a survey into a group (created when new); {@link FakeSupplierApi.setSurveyGroup} with the survey added. */
  addToSurveyGroup(groupId: number, surveyId: number): GeneratedSurveyGroup;
  /** Moves a survey out of a group; the group is deleted (`undefined`) when it was the last. @throws RangeError for an unknown group. */
  removeFromSurveyGroup(groupId: number, surveyId: number): GeneratedSurveyGroup | undefined;
  /**
   * Replaces the re-contact list of a survey whose study type is Recontact; returns it as served.
   * @throws RangeError for another study type, an empty or repeated `PID`.
   */
  replaceRecontactRespondents(
    surveyId: number,
    respondents: readonly RecontactRespondentInit[],
  ): GeneratedRecontactRespondent[];
  /** Sets what Get Survey Stats serves for a survey; `null` goes back to the generated figures. Returns the stats as served. */
  setSurveyStats(surveyId: number, stats: SurveyStatsInit | null): SurveyStatsInit;
  /** Every logged request, oldest first. */
  requestLog(): readonly RequestLogEntry[];
  /** Empties the request log. */
  clearRequestLog(): void;
  /** Restores the state the fake started with, and clears the request log and faults. */
  reset(): void;
}
