import { devices, type Device } from "@sds/schemas";
import { z } from "zod";
import { SyncError, type HttpMeaning } from "../common/errors.ts";
import type { SurveyQuery } from "../store/store.ts";
import { SURVEY_ID_RANGE } from "../survey-index/survey-id.ts";

/** A request parameter is missing or malformed: answered 400 with this message. */
export class ParamError extends SyncError {
  override name = "ParamError" as const;
  /** The parameter at fault. */
  readonly param: string;
  constructor(param: string, message: string) {
    super(`${param}: ${message}`);
    this.param = param;
  }
  override get http(): HttpMeaning {
    return { status: 400, code: "bad_request", message: this.message, logged: false };
  }
}

/** Default and largest page size of `/v1/surveys`. */
export const SURVEY_PAGE = { default: 100, max: 1000 } as const;
/** Default and largest page size of `/v1/changes`. */
export const CHANGES_PAGE = { default: 100, max: 1000 } as const;
/** Longest `wait` of `/v1/changes`, in seconds: beyond it proxies tend to cut idle requests. */
export const MAX_WAIT_SECONDS = 60;

/** Longest comma list (`language`, `device`) one query may carry. */
export const MAX_LIST_ITEMS = 100;

/**
 * A query parameter as `/openapi.json` describes it. The parsers below are hand-written (they
 * name the parameter at fault and refuse impossible dates, which a zod schema of the query would
 * not say as well), so these declarations sit beside them: the parsers take their list of known
 * names from here, and the OpenAPI test sends real requests that a drift in either would fail.
 * A comma list (`explode: false`) is an array.
 */
export interface QueryParameter {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly explode?: false;
}

/** The query parameters of `GET /v1/surveys`, parsed by {@link parseSurveyQuery}. */
export const surveyQueryParameters = [
  { name: "status", description: "Which surveys: live, closed or all.", schema: z.enum(["live", "closed", "all"]).default("live") },
  { name: "language", description: "LanguageIds, comma-separated: surveys in any of them.", schema: z.array(z.int().min(0)).max(MAX_LIST_ITEMS), explode: false },
  { name: "minCpi", description: "Lowest Cpi (a non-negative decimal).", schema: z.number().min(0) },
  { name: "maxCpi", description: "Highest Cpi; not below minCpi.", schema: z.number().min(0) },
  { name: "maxLoi", description: "Longest length of interview, in minutes.", schema: z.number().min(0) },
  { name: "device", description: "Devices, comma-separated: a survey must allow every one named.", schema: z.array(z.enum(devices as readonly [Device, ...Device[]])).max(MAX_LIST_ITEMS), explode: false },
  { name: "updatedSince", description: "Only surveys whose stored copy changed at or after this ISO 8601 date or date-time.", schema: z.string() },
  { name: "cursor", description: "The nextCursor of the previous page (opaque).", schema: z.string() },
  { name: "limit", description: "Page size.", schema: z.int().min(1).max(SURVEY_PAGE.max).default(SURVEY_PAGE.default) },
] as const satisfies readonly QueryParameter[];

/** The query parameters of the two feeds, `GET /v1/changes` and `GET /v1/outcomes`, parsed by {@link parseChangesQuery}. */
export const changesQueryParameters = [
  { name: "after", description: "Sequence number: the entries after it.", schema: z.int().min(0).default(0) },
  { name: "limit", description: "Page size.", schema: z.int().min(1).max(CHANGES_PAGE.max).default(CHANGES_PAGE.default) },
  { name: "wait", description: "Seconds to long-poll when nothing follows `after`.", schema: z.int().min(0).max(MAX_WAIT_SECONDS).default(0) },
] as const satisfies readonly QueryParameter[];

const surveyParams: ReadonlySet<string> = new Set(surveyQueryParameters.map((parameter) => parameter.name));
const changeParams: ReadonlySet<string> = new Set(changesQueryParameters.map((parameter) => parameter.name));

function rejectUnknown(params: URLSearchParams, known: ReadonlySet<string>): void {
  for (const name of params.keys()) {
    if (!known.has(name)) throw new ParamError(name, `unknown parameter; known: ${[...known].join(", ")}`);
  }
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new ParamError(name, "given more than once");
  return values[0];
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw new ParamError(name, `must be a whole number, got ${JSON.stringify(value)}`);
  const number = Number(value);
  if (number < min || number > max) throw new ParamError(name, `must be between ${min} and ${max}, got ${value}`);
  return number;
}

function decimal(name: string, value: string): number {
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(number)) throw new ParamError(name, `must be a non-negative number, got ${JSON.stringify(value)}`);
  return number;
}

function list(name: string, value: string): string[] {
  const items = value.split(",").map((item) => item.trim());
  if (items.length > MAX_LIST_ITEMS) throw new ParamError(name, `takes at most ${MAX_LIST_ITEMS} values, got ${items.length}`);
  return items;
}

const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * An ISO 8601 date (`2024-02-29`, midnight UTC) or date-time (`2024-02-29T10:30:00Z`, with an
 * offset or without one, then local time), refusing impossible ones (`2024-02-30`, `T25:00`)
 * rather than letting Date roll them over into the next month or day.
 */
function parseTimestamp(name: string, value: string): Date {
  const refuse = (why: string) => new ParamError(name, `must be an ISO 8601 date or date-time${why}, got ${JSON.stringify(value)}`);
  const match = ISO_TIMESTAMP.exec(value);
  if (!match) throw refuse("");
  const field = (index: number): number => Number(match[index] ?? 0);
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 8, 9].map(field) as [number, number, number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) throw refuse(" (no such day)");
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) throw refuse(" (no such time)");
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw refuse("");
  return time;
}

/** The opaque cursor of a page: the last survey id, base64url-encoded so clients do not build it themselves. */
export function encodeCursor(lastId: number): string {
  return Buffer.from(`id:${lastId}`).toString("base64url");
}

function decodeCursor(value: string): number {
  const decoded = /^id:(\d{1,16})$/.exec(Buffer.from(value, "base64url").toString("utf8"));
  if (!decoded?.[1]) throw new ParamError("cursor", "is not a cursor this service issued");
  return Number(decoded[1]);
}

/**
 * Parses the query of `GET /v1/surveys`. Lists accept commas (`language=3,8`, `device=mobile,tablet`,
 * where a survey must allow every device named).
 *
 * @throws ParamError on any unknown, repeated or malformed parameter.
 */
export function parseSurveyQuery(params: URLSearchParams): SurveyQuery {
  rejectUnknown(params, surveyParams);
  const status = single(params, "status") ?? "live";
  if (status !== "live" && status !== "closed" && status !== "all") throw new ParamError("status", `must be live, closed or all, got ${JSON.stringify(status)}`);

  const query: { -readonly [K in keyof SurveyQuery]: SurveyQuery[K] } = { status, limit: SURVEY_PAGE.default };
  const language = single(params, "language");
  if (language !== undefined) query.languageIds = list("language", language).map((id) => integer("language", id, 0, Number.MAX_SAFE_INTEGER));
  const minCpi = single(params, "minCpi");
  if (minCpi !== undefined) query.minCpi = decimal("minCpi", minCpi);
  const maxCpi = single(params, "maxCpi");
  if (maxCpi !== undefined) query.maxCpi = decimal("maxCpi", maxCpi);
  if (query.minCpi !== undefined && query.maxCpi !== undefined && query.minCpi > query.maxCpi) throw new ParamError("minCpi", "must not exceed maxCpi");
  const maxLoi = single(params, "maxLoi");
  if (maxLoi !== undefined) query.maxLoi = decimal("maxLoi", maxLoi);
  const device = single(params, "device");
  if (device !== undefined) {
    query.devices = list("device", device).map((name) => {
      const known = devices.find((candidate) => candidate === name);
      if (!known) throw new ParamError("device", `must be ${devices.join(", ")} (or a comma list), got ${JSON.stringify(name)}`);
      return known satisfies Device;
    });
  }
  const updatedSince = single(params, "updatedSince");
  if (updatedSince !== undefined) query.updatedSince = parseTimestamp("updatedSince", updatedSince);
  const cursor = single(params, "cursor");
  if (cursor !== undefined) query.afterId = decodeCursor(cursor);
  const limit = single(params, "limit");
  if (limit !== undefined) query.limit = integer("limit", limit, 1, SURVEY_PAGE.max);
  return query;
}

/** The query of `GET /v1/changes`. */
export interface ChangesQuery {
  readonly after: number;
  readonly limit: number;
  readonly waitSeconds: number;
}

/** Parses the query of `GET /v1/changes`. @throws ParamError */
export function parseChangesQuery(params: URLSearchParams): ChangesQuery {
  rejectUnknown(params, changeParams);
  const after = single(params, "after");
  const limit = single(params, "limit");
  const wait = single(params, "wait");
  return {
    after: after === undefined ? 0 : integer("after", after, 0, Number.MAX_SAFE_INTEGER),
    limit: limit === undefined ? CHANGES_PAGE.default : integer("limit", limit, 1, CHANGES_PAGE.max),
    waitSeconds: wait === undefined ? 0 : integer("wait", wait, 0, MAX_WAIT_SECONDS),
  };
}

/** Parses the `:id` of `/v1/surveys/:id`. @throws ParamError */
export function parseSurveyId(value: string): number {
  return integer("id", value, SURVEY_ID_RANGE.min, SURVEY_ID_RANGE.max);
}
