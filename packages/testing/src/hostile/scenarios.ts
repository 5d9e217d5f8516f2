/**
 * What a hostile upstream can do to a client, one scenario at a time. Scenarios about the body
 * apply to Get Surveys (`GET /surveys`), the one response a poller trusts most, except the
 * `malformed-…` ones, which break the per-survey groups and re-contact lists; the others apply
 * to every request. Each is plain data, so a test can name and print it.
 */
export type HostileScenario =
  | EmptyListScenario
  | DripScenario
  | HangScenario
  | OversizeFieldScenario
  | DuplicateIdsScenario
  | OutOfRangeIdsScenario
  | WrongTypesScenario
  | TruncatedBodyScenario
  | HtmlBodyScenario
  | ErrorAtEndScenario
  | UnauthorizedMidRunScenario
  | RateLimitStormScenario
  | MalformedSurveyGroupsScenario
  | MalformedRecontactRespondentsScenario;

/** A well-formed, successful Get Surveys with no survey at all: `{"Surveys": []}`. */
export interface EmptyListScenario {
  readonly kind: "empty-list";
}

/**
 * The real Get Surveys body, sent a few bytes at a time: headers at once, then `bytesPerChunk`
 * bytes every `intervalMs`. A per-chunk timeout never fires; only a whole-response or
 * whole-cycle deadline ends it.
 */
export interface DripScenario {
  readonly kind: "drip";
  /** @default 1 */
  readonly bytesPerChunk?: number;
  readonly intervalMs: number;
}

/**
 * Get Surveys never completes: with `afterBytes` unset no response at all (not even headers);
 * otherwise the headers and the first `afterBytes` bytes of the real body, then nothing. Ends
 * only when the client gives up.
 */
export interface HangScenario {
  readonly kind: "hang";
  readonly afterBytes?: number;
}

/** The first `count` listed surveys carry a `field` of `bytes` characters (a valid, absurd record). */
export interface OversizeFieldScenario {
  readonly kind: "oversize-field";
  /** @default "Name" */
  readonly field?: string;
  readonly bytes: number;
  /** @default 1 */
  readonly count?: number;
}

/**
 * The first `count` listed surveys appear a second time at the end of the list, with a different
 * `Name` ("… (copy)") and a later `LastUpdatedOnUTC`: which copy a client keeps shows.
 */
export interface DuplicateIdsScenario {
  readonly kind: "duplicate-ids";
  /** @default 1 */
  readonly count?: number;
}

/**
 * Surveys whose `SurveyId` is no positive safe integer are added to the list (copies of the first
 * listed survey otherwise): the ids of {@link outOfRangeSurveyIds}, written as they are
 * (`12345678901234567890` is sent as those digits, which JavaScript reads as …567000).
 */
export interface OutOfRangeIdsScenario {
  readonly kind: "out-of-range-ids";
}

/**
 * The first `count` listed surveys get wrong JSON types (`Cpi` a number, `LanguageId` a string,
 * `MobileAllowed` a string, `Qual_LastUpdatedOnUTC` a number) but keep their `SurveyId`; and three
 * items that are no survey at all (`null`, `42`, `"survey"`) are added.
 */
export interface WrongTypesScenario {
  readonly kind: "wrong-types";
  /** @default 1 */
  readonly count?: number;
}

/** Get Surveys cut short (with a matching Content-Length, as a proxy sends it): the fake's `truncated-json` fault. */
export interface TruncatedBodyScenario {
  readonly kind: "truncated-body";
  /** Fraction of the body kept. @default 0.6 */
  readonly keep?: number;
}

/** Get Surveys answered 200 with an HTML page (a captive portal or a login page), `text/html`. */
export interface HtmlBodyScenario {
  readonly kind: "html-body";
}

/** The whole real list, then `"hasError": true` and a message after it, at the very end of the body. */
export interface ErrorAtEndScenario {
  readonly kind: "error-at-end";
}

/** The key stops working mid-run: after `after` requests, every request gets 401 `INVALID_API_KEY`. */
export interface UnauthorizedMidRunScenario {
  readonly kind: "unauthorized-mid-run";
  /** Requests answered normally first. @default 1 (the list; then every per-survey request fails) */
  readonly after?: number;
}

/** Every request gets 429 with a huge `Retry-After`: the fake's `status` fault. */
export interface RateLimitStormScenario {
  readonly kind: "rate-limit-storm";
  /** @default 86400 (a day) */
  readonly retryAfterSeconds?: number;
}

/**
 * How a malformed per-survey body is broken:
 * - `wrong-types`: the real list with ids as strings and negative or fractional ids (groups:
 *   `SurveyGroupID: "7001"`, `SurveyGroupSurveys: "100001,100002"`; re-contacts: `PID` a number,
 *   `IsActive: "yes"`), plus `null` and `42` as items;
 * - `html`: 200 with `text/html`, a login page;
 * - `truncated-json`: the real body cut at 60 %, with a matching Content-Length;
 * - `not-found`: 404 `ROUTE_NOT_FOUND`, as from a deployment where the guessed path does not exist.
 */
export type MalformedBodyKind = "wrong-types" | "html" | "truncated-json" | "not-found";

/** Get Survey Groups (`/survey-groups/{surveyId}`) answers a malformed body, for every survey or only `surveyIds`. */
export interface MalformedSurveyGroupsScenario {
  readonly kind: "malformed-survey-groups";
  readonly body: MalformedBodyKind;
  /** Only these surveys' answers are broken; the others stay honest. @default every survey */
  readonly surveyIds?: readonly number[];
}

/** Get ReContact Respondents (`/recontact-respondents/{surveyId}`) answers a malformed body, for every survey or only `surveyIds`. */
export interface MalformedRecontactRespondentsScenario {
  readonly kind: "malformed-recontact-respondents";
  readonly body: MalformedBodyKind;
  /** Only these surveys' answers are broken; the others stay honest. @default every survey */
  readonly surveyIds?: readonly number[];
}

/** The `kind` of a {@link HostileScenario}. */
export type HostileScenarioKind = HostileScenario["kind"];

/** The ids the `out-of-range-ids` scenario adds, as they appear in the body. */
export const outOfRangeSurveyIds = ["-5", "0", "1.5", "9007199254740993", "12345678901234567890", '"77"'] as const;
