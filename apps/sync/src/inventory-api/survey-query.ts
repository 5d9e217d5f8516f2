import { devices, type Device } from "@sds/schemas";
import { SURVEY_PAGE, SurveyQuery as SurveyQuerySchema } from "@sds/sync-client";
import { z } from "zod";
import {
  decimal,
  integer,
  list,
  ParamError,
  parseTimestamp,
  rejectUnknown,
  single,
  type QueryParameter,
} from "../http/query-params.ts";
import type { SurveyQuery } from "../inventory-store/store.ts";
import { SURVEY_ID_RANGE } from "../survey-index/survey-id.ts";

/**
 * The query parameters of `GET /v1/surveys` as `/openapi.json` lists them, parsed by
 * {@link parseSurveyQuery}: `@sds/sync-client`'s `SurveyQuery`, the lists comma-separated.
 */
export const surveyQueryParameters = Object.entries(SurveyQuerySchema.shape).map(([name, schema]) => {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
  return {
    name,
    description: schema.description ?? name,
    schema: inner,
    ...(inner instanceof z.ZodArray ? { explode: false as const } : {}),
  };
}) satisfies readonly QueryParameter[];

const surveyParams: ReadonlySet<string> = new Set(surveyQueryParameters.map((parameter) => parameter.name));

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
  if (status !== "live" && status !== "closed" && status !== "all")
    throw new ParamError("status", `must be live, closed or all, got ${JSON.stringify(status)}`);

  const query: { -readonly [K in keyof SurveyQuery]: SurveyQuery[K] } = { status, limit: SURVEY_PAGE.default };
  const language = single(params, "language");
  if (language !== undefined)
    query.languageIds = list("language", language).map((id) => integer("language", id, 0, Number.MAX_SAFE_INTEGER));
  const minCpi = single(params, "minCpi");
  if (minCpi !== undefined) query.minCpi = decimal("minCpi", minCpi);
  const maxCpi = single(params, "maxCpi");
  if (maxCpi !== undefined) query.maxCpi = decimal("maxCpi", maxCpi);
  if (query.minCpi !== undefined && query.maxCpi !== undefined && query.minCpi > query.maxCpi)
    throw new ParamError("minCpi", "must not exceed maxCpi");
  const maxLoi = single(params, "maxLoi");
  if (maxLoi !== undefined) query.maxLoi = decimal("maxLoi", maxLoi);
  const device = single(params, "device");
  if (device !== undefined) {
    query.devices = list("device", device).map((name) => {
      const known = devices.find((candidate) => candidate === name);
      if (!known)
        throw new ParamError("device", `must be ${devices.join(", ")} (or a comma list), got ${JSON.stringify(name)}`);
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

/** Parses the `:id` of `/v1/surveys/:id`. @throws ParamError */
export function parseSurveyId(value: string): number {
  return integer("id", value, SURVEY_ID_RANGE.min, SURVEY_ID_RANGE.max);
}
